package audit

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleExtensionInPgCatalog is the id of the rule of docs/rules/extension-in-pg-catalog.md, which this phase reports.
const RuleExtensionInPgCatalog = "extension-in-pg-catalog"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseAudit,
	ID: RuleExtensionInPgCatalog, Severity: finding.SevError,
})
