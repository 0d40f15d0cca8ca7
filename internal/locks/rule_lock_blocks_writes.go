package locks

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleLockBlocksWrites is the id of the rule of docs/rules/lock-blocks-writes.md, which this phase reports.
const RuleLockBlocksWrites = "lock-blocks-writes"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseLocks,
	ID: RuleLockBlocksWrites, Severity: finding.SevWarning,
})
