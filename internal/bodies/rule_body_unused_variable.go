package bodies

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleBodyUnusedVariable is the id of the rule of docs/rules/body-unused-variable.md, which this phase reports.
const RuleBodyUnusedVariable = "body-unused-variable"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseBodies,
	ID: RuleBodyUnusedVariable, Severity: finding.SevWarning,
})
