package rerun

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleUpgradeSequenceReset is the id of the rule of docs/rules/upgrade-sequence-reset.md, which this phase reports.
const RuleUpgradeSequenceReset = "upgrade-sequence-reset"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseRerun,
	ID: RuleUpgradeSequenceReset, Severity: finding.SevError,
})
