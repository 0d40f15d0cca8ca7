package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// BodyNotAnalysed is the id of the rule below.
const BodyNotAnalysed = "body-not-analysed"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: BodyNotAnalysed, Severity: finding.SevWarning,
	}),
	Check: func(p *Pass) {
		for _, pr := range p.File.Problems {
			if !pr.Syntax && !pr.TooComplex {
				p.Report(pr.Pos, "", "not analysed: %s", pr.Msg)
			}
		}
	},
})
