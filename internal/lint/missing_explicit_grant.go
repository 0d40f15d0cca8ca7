package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// MissingExplicitGrant is the id of the rule below.
const MissingExplicitGrant = "missing-explicit-grant"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: MissingExplicitGrant, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		seen := map[ownKey]bool{}
		privs := p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbGrant || op.Verb == pgsql.VerbRevoke })
		for _, op := range p.Ops() {
			if op.Verb != pgsql.VerbCreate || len(op.Objects) == 0 {
				continue
			}
			obj := op.Objects[0]
			switch obj.Kind {
			case pgsql.KindFunction, pgsql.KindProcedure:
				if op.Func() != nil && op.Func().ReturnsTrigger {
					continue
				}
			case pgsql.KindView, pgsql.KindMatView:
			default:
				continue
			}
			if p.Own.Existing(obj) || seen[keyOf(obj)] {
				continue
			}
			seen[keyOf(obj)] = true
			if !hasPrivilegeStmt(privs[obj.Name.Name], obj) {
				p.Report(obj.Pos, obj.Label(), "%s has no explicit GRANT or REVOKE", obj.ShortLabel())
			}
		}
	},
})
