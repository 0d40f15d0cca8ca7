package bodies

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleBodyVolatility is the id of the rule of docs/rules/body-volatility.md, which this phase reports.
const RuleBodyVolatility = "body-volatility"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseBodies,
	ID: RuleBodyVolatility, Severity: finding.SevWarning,
})
