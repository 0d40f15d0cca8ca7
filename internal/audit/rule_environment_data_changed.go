package audit

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleEnvironmentDataChanged is the id of the rule of docs/rules/environment-data-changed.md, which this phase reports.
const RuleEnvironmentDataChanged = "environment-data-changed"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseAudit,
	ID: RuleEnvironmentDataChanged, Severity: finding.SevWarning,
})
