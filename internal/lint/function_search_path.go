package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// FunctionSearchPath is the id of the rule below.
const FunctionSearchPath = "function-search-path"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: FunctionSearchPath, Severity: finding.SevWarning,
	}),
	Check: func(p *Pass) {
		for _, def := range functionDefs(p) {
			if !def.Func().SecurityDefiner && !pinned(p, def) {
				obj := def.Objects[0]
				p.Report(def.Pos, obj.String(), "%s %s has no SET search_path (splinter 0011)", obj.Kind, obj.Name)
			}
		}
	},
})
