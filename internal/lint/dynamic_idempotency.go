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
		Summary: "a DO block with dynamic SQL may make a later statement rerun-safe; lint cannot tell",
		Explain: `A DO block that runs SQL built at run time (EXECUTE format(...)) before a statement that is
not rerun-safe on its own (a plain CREATE FUNCTION, CREATE TABLE without IF NOT EXISTS) may be
what makes the file safe to run twice, or may not: lint cannot see what the block does. When the
block names the object of such a statement, lint says so here, at the block, and still reports
the statement (not-idempotent); the rerun audit (ledgercheck check, ledgercheck rerun) runs the
file again and decides. check fails a file once for this fact: a rerun failure at a statement
lint already reported is folded into the lint finding.

One pattern is recognised and not reported: a loop over pg_proc filtered by proname (and the
schema) alone that EXECUTEs DROP FUNCTION of each row's regprocedure drops every overload of the
name, as DROP FUNCTION IF EXISTS would.

    DO $$ DECLARE f regprocedure; BEGIN
      FOR f IN SELECT oid::regprocedure FROM pg_proc WHERE proname = 'digest_for_day' LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
      END LOOP;
    END $$;
    CREATE FUNCTION public.digest_for_day(p_day date) ...

becomes

    DO $$ DECLARE f regprocedure; BEGIN
      FOR f IN SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = 'public' AND p.proname = 'digest_for_day' LOOP
        EXECUTE format('DROP FUNCTION %s', f);
      END LOOP;
    END $$;
    CREATE FUNCTION public.digest_for_day(p_day date) ...`,
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
