package rerun

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleRerunSequenceReset is the id of the rule of docs/rules/rerun-sequence-reset.md, which this phase reports.
const RuleRerunSequenceReset = "rerun-sequence-reset"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseRerun,
	ID: RuleRerunSequenceReset, Severity: finding.SevError,
})
