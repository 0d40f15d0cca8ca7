package locks

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleLockAccessExclusive is the id of the rule of docs/rules/lock-access-exclusive.md, which this phase reports.
const RuleLockAccessExclusive = "lock-access-exclusive"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseLocks,
	ID: RuleLockAccessExclusive, Severity: finding.SevError,
})
