package locks

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleLockWithoutTimeout is the id of the rule of docs/rules/lock-without-timeout.md, which this phase reports.
const RuleLockWithoutTimeout = "lock-without-timeout"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseLocks,
	ID: RuleLockWithoutTimeout, Severity: finding.SevWarning,
})
