package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// UnsupportedStatement is the id of the rule below.
const UnsupportedStatement = "unsupported-statement"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: UnsupportedStatement, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		for _, m := range p.File.MetaCommands {
			p.Report(m.Pos, "", "%s is psql syntax, not SQL; other clients reject the file", abbreviate(m.Text, 40))
		}
		for _, op := range p.Ops() {
			if op.Verb == pgsql.VerbCopy && op.Copy() != nil && op.Copy().File == "" && op.Copy().From {
				p.Report(op.Pos, op.Object().String(), "COPY ... FROM STDIN needs psql to supply the data%s", where(op))
			}
		}
	},
})
