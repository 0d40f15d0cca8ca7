package audit

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleUntrustedExtension is the id of the rule of docs/rules/untrusted-extension.md, which this phase reports.
const RuleUntrustedExtension = "untrusted-extension"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseAudit,
	ID: RuleUntrustedExtension, Severity: finding.SevError,
})
