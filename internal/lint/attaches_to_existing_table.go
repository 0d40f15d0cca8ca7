package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// AttachesToExistingTable is the id of the rule below.
const AttachesToExistingTable = "attaches-to-existing-table"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: AttachesToExistingTable, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		for _, t := range existingTouches(p.File, p.Config, p.Own) {
			if !t.Attach || t.Allowed {
				continue
			}
			if t.Review != "" {
				p.Report(t.Op.TableAt(), t.Object.String(), "%s attaches %s to %s, which this file did not create%s: %s",
					t.Op.Tag, t.Object.Kind, t.Object.Table, where(t.Op), t.Review)
				continue
			}
			p.Report(t.Op.TableAt(), t.Object.String(), "%s attaches %s to %s, which this file did not create%s; allow it in ledgercheck.yaml (lint.allow) with a reason if it is intended",
				t.Op.Tag, t.Object.Kind, t.Object.Table, where(t.Op))
		}
	},
})
