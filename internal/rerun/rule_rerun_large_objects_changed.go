package rerun

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleRerunLargeObjectsChanged is the id of the rule of docs/rules/rerun-large-objects-changed.md, which this phase reports.
const RuleRerunLargeObjectsChanged = "rerun-large-objects-changed"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseRerun,
	ID: RuleRerunLargeObjectsChanged, Severity: finding.SevError,
})
