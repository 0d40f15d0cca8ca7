package lint

import (
	"fmt"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// ModifiesExistingObject is the id of the rule below.
const ModifiesExistingObject = "modifies-existing-object"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: ModifiesExistingObject, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		recreated := map[ownKey]int{} // the finding of each object the file re-creates
		for _, t := range existingTouches(p.File, p.Config, p.Own) {
			if t.Attach || t.Allowed {
				continue
			}
			what := string(t.Verb)
			if t.Detail != "" {
				what += " (" + t.Detail + ")"
			}
			pos := t.Op.At()
			// Follow-on changes to an object the file re-creates are folded into that finding.
			if i, ok := recreated[keyOf(t.Object)]; ok {
				(*p.findings)[i].Detail += fmt.Sprintf("\nalso %s at %s", what, pos)
				continue
			}
			if t.Verb == "create" {
				recreated[keyOf(t.Object)] = len(*p.findings)
				p.Report(pos, t.Object.Label(), "%s re-creates %s, which exists before this file runs%s; a sidecar must not redefine it", t.Op.Tag, t.Object.ShortLabel(), where(t.Op))
				continue
			}
			p.Report(pos, t.Object.Label(), "%s changes %s, which this file did not create%s: %s", t.Op.Tag, t.Object.ShortLabel(), where(t.Op), what)
		}
	},
})
