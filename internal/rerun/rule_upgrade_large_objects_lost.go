package rerun

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleUpgradeLargeObjectsLost is the id of the rule of docs/rules/upgrade-large-objects-lost.md, which this phase reports.
const RuleUpgradeLargeObjectsLost = "upgrade-large-objects-lost"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseRerun,
	ID: RuleUpgradeLargeObjectsLost, Severity: finding.SevError,
})
