package bodies

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleBodyCannotRun is the id of the rule of docs/rules/body-cannot-run.md, which this phase reports.
const RuleBodyCannotRun = "body-cannot-run"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseBodies,
	ID: RuleBodyCannotRun, Severity: finding.SevError,
})
