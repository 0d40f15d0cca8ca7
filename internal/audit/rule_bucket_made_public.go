package audit

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleBucketMadePublic is the id of the rule of docs/rules/bucket-made-public.md, which this phase reports.
const RuleBucketMadePublic = "bucket-made-public"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseAudit,
	ID: RuleBucketMadePublic, Severity: finding.SevError,
})
