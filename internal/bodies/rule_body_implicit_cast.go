package bodies

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleBodyImplicitCast is the id of the rule of docs/rules/body-implicit-cast.md, which this phase reports.
const RuleBodyImplicitCast = "body-implicit-cast"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseBodies,
	ID: RuleBodyImplicitCast, Severity: finding.SevWarning,
})
