package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// DynamicSQL is the id of the rule below.
const DynamicSQL = "dynamic-sql"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: DynamicSQL, Severity: finding.SevWarning,
	}),
	Check: func(p *Pass) {
		for _, op := range p.Ops() {
			if op.Verb == pgsql.VerbExecute && op.Dynamic() != nil && !op.Dynamic().Literal {
				p.Report(op.Pos, "", "EXECUTE runs SQL built at run time%s; lint cannot check it: %s", where(op), abbreviate(op.Dynamic().SQL, 60))
			}
		}
	},
})

func abbreviate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}
