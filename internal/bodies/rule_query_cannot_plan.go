package bodies

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleQueryCannotPlan is the id of the rule of docs/rules/query-cannot-plan.md, which this phase reports.
const RuleQueryCannotPlan = "query-cannot-plan"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseBodies,
	ID: RuleQueryCannotPlan, Severity: finding.SevError,
})
