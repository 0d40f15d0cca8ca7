package bodies

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleBodyDeadCode is the id of the rule of docs/rules/body-dead-code.md, which this phase reports.
const RuleBodyDeadCode = "body-dead-code"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseBodies,
	ID: RuleBodyDeadCode, Severity: finding.SevWarning,
})
