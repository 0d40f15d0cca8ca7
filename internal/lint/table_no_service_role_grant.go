package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// TableNoServiceRoleGrant is the id of the rule below.
const TableNoServiceRoleGrant = "table-no-service-role-grant"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: TableNoServiceRoleGrant, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		grants := p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbGrant })
		for _, t := range newTables(p) {
			name := t.Objects[0].Name
			if !granted(p, grants, name, "service_role") {
				p.Report(t.Objects[0].Pos, t.Objects[0].String(), "table %s has no GRANT ... TO service_role", name)
			}
		}
	},
})
