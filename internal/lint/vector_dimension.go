package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// VectorDimension is the id of the rule below.
const VectorDimension = "vector-dimension"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: VectorDimension, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		if p.Options.Dim <= 0 {
			return
		}
		for _, v := range p.File.VectorTypes {
			if v.Dim != p.Options.Dim {
				p.Report(v.Pos, "", "%s(%d) does not match --dim %d", v.Type, v.Dim, p.Options.Dim)
			}
		}
	},
})
