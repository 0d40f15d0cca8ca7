package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// UnusedSuppression is the id of the rule below.
const UnusedSuppression = "unused-suppression"

var ruleUnusedSuppression = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: UnusedSuppression, Severity: finding.SevError,
	}),
})
