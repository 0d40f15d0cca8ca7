package bodies

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleCronJobFailed is the id of the rule of docs/rules/cron-job-failed.md, which this phase reports.
const RuleCronJobFailed = "cron-job-failed"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseBodies,
	ID: RuleCronJobFailed, Severity: finding.SevError,
})
