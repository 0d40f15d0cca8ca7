package locks

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleLockHeldAcrossSlowStatements is the id of the rule of docs/rules/lock-held-across-slow-statements.md, which this phase reports.
const RuleLockHeldAcrossSlowStatements = "lock-held-across-slow-statements"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseLocks,
	ID: RuleLockHeldAcrossSlowStatements, Severity: finding.SevWarning,
})
