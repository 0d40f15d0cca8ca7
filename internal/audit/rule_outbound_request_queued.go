package audit

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleOutboundRequestQueued is the id of the rule of docs/rules/outbound-request-queued.md, which this phase reports.
const RuleOutboundRequestQueued = "outbound-request-queued"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseAudit,
	ID: RuleOutboundRequestQueued, Severity: finding.SevError,
})
