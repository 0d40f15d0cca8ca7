package lint

import (
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// TableRLSDisabled is the id of the rule below.
const TableRLSDisabled = "table-rls-disabled"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: TableRLSDisabled, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		if dynamicRLS(p) {
			return // the installed audit (rls-disabled-in-public) sees which tables the SQL missed
		}
		alters := p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbAlter })
		for _, t := range newTables(p) {
			name := t.Objects[0].Name
			ok := false
			for _, op := range alters[name.Name] {
				if op.Verb != pgsql.VerbAlter || len(op.Objects) == 0 || !sameRelation(op.Objects[0], op.SearchPath, name) {
					continue
				}
				for _, c := range op.AlterCmds() {
					if c.Action == "EnableRowSecurity" {
						ok = true
					}
				}
			}
			if !ok {
				p.Report(t.Objects[0].Pos, t.Objects[0].String(), "table %s is created without ENABLE ROW LEVEL SECURITY", name)
			}
		}
	},
})

// dynamicRLS reports whether SQL built at run time in the file enables row level security.
func dynamicRLS(p *Pass) bool {
	for _, op := range p.Ops() {
		if d := op.Dynamic(); d != nil && !d.Literal && strings.Contains(strings.ToLower(d.SQL), "row level security") {
			return true
		}
	}
	return false
}
