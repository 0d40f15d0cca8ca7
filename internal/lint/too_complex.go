package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// TooComplex is the id of the rule below.
const TooComplex = "too-complex"

var ruleTooComplex = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: TooComplex, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		for _, pr := range p.File.Problems {
			if pr.TooComplex {
				p.Report(pr.Pos, "", "%s", pr.Msg)
			}
		}
	},
})
