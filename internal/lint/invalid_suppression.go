package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// InvalidSuppression is the id of the rule below.
const InvalidSuppression = "invalid-suppression"

var ruleInvalidSuppression = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: InvalidSuppression, Severity: finding.SevError,
	}),
})
