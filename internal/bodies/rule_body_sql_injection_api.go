package bodies

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleBodySQLInjectionAPI is the id of the rule of docs/rules/body-sql-injection-api.md, which this phase reports.
const RuleBodySQLInjectionAPI = "body-sql-injection-api"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseBodies,
	ID: RuleBodySQLInjectionAPI, Severity: finding.SevError,
})
