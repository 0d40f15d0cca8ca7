package lint

import (
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// DynamicIdempotency is the id of the rule below.
const DynamicIdempotency = "dynamic-idempotency"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: DynamicIdempotency, Severity: finding.SevWarning,
	}),
	Check: func(p *Pass) {
		unsafe := unguardedCreates(p)
		for _, op := range p.TopLevel() {
			if op.Verb != pgsql.VerbDo || !hasDynamicSQL(p, op.Stmt) {
				continue
			}
			text := strings.ToLower(p.File.Stmts[op.Stmt].Text)
			for _, u := range unsafe {
				if u.Stmt > op.Stmt && strings.Contains(text, strings.ToLower(u.Object().Name.Name)) {
					p.Report(op.Pos, u.Object().Label(), "this DO block runs dynamic SQL that names %s, which %s at %d:%d creates without a rerun guard; lint cannot tell whether the block makes it safe, the rerun audit decides",
						u.Object().Name, u.Tag, u.Pos.Line, u.Pos.Col)
					break
				}
			}
		}
	},
})

// hasDynamicSQL reports whether the top-level statement stmt holds an EXECUTE of SQL built at
// run time.
func hasDynamicSQL(p *Pass, stmt int) bool {
	for _, op := range p.Ops() {
		if op.Stmt == stmt && op.Dynamic() != nil && !op.Dynamic().Literal {
			return true
		}
	}
	return false
}

// unguardedCreates are the top-level CREATE FUNCTION, PROCEDURE, VIEW, TABLE, ... statements
// that not-idempotent reports (no OR REPLACE, IF NOT EXISTS or preceding DROP).
func unguardedCreates(p *Pass) []*pgsql.Op {
	var out []*pgsql.Op
	checkIdempotencyWith(p, func(op *pgsql.Op, _ finding.Position, _, _ string, _ ...any) {
		if op.Verb == pgsql.VerbCreate && len(op.Objects) > 0 {
			out = append(out, op)
		}
	})
	return out
}
