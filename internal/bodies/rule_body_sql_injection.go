package bodies

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleBodySQLInjection is the id of the rule of docs/rules/body-sql-injection.md, which this phase reports.
const RuleBodySQLInjection = "body-sql-injection"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseBodies,
	ID: RuleBodySQLInjection, Severity: finding.SevWarning,
})
