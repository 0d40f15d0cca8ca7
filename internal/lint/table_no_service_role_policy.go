package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
	"slices"
)

// TableNoServiceRolePolicy is the id of the rule below.
const TableNoServiceRolePolicy = "table-no-service-role-policy"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: TableNoServiceRolePolicy, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		policies := p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbCreate && op.Object().Kind == pgsql.KindPolicy })
		for _, t := range newTables(p) {
			name := t.Objects[0].Name
			ok := false
			for _, op := range policies[name.Name] {
				if op.Verb != pgsql.VerbCreate || op.Object().Kind != pgsql.KindPolicy {
					continue
				}
				obj := op.Object()
				roles := op.Roles()
				forAll := len(roles) == 0 || slices.Contains(roles, "public")
				if sameTable(obj.Table, obj.Qualified, op.SearchPath, name) && (slices.Contains(roles, "service_role") || forAll && op.Policy().ServiceRoleClaim) {
					ok = true
				}
			}
			if !ok {
				p.Report(t.Objects[0].Pos, t.Objects[0].String(), "table %s has no policy TO service_role (the sidecar contract: service_role bypasses RLS, and the policy states the intended access)", name)
			}
		}
	},
})
