package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// SecurityDefinerSearchPath is the id of the rule below.
const SecurityDefinerSearchPath = "security-definer-search-path"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: SecurityDefinerSearchPath, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		for _, def := range functionDefs(p) {
			if def.Func().SecurityDefiner && !pinned(p, def) {
				obj := def.Objects[0]
				p.Report(def.Pos, obj.String(), "SECURITY DEFINER %s %s has no SET search_path", obj.Kind, obj.Name)
			}
		}
	},
})
