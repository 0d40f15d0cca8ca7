package bodies

import (
	"errors"
	"fmt"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// jobFindings are the findings of the pg_cron jobs whose command failed when the install ran
// it (failed[i] is jobs[i]'s error, nil when it ran: internal/sqlscript's RunJobs): each at the
// statement of the command that failed, or at the token the server names.
func jobFindings(jobs []sqlscript.Job, failed []error) []finding.Finding {
	var out []finding.Finding
	for i, err := range failed {
		if err == nil {
			continue
		}
		j := jobs[i].Job
		what := "the command of the pg_cron job"
		if j.Name != "" {
			what += " " + j.Name
		}
		what += " (scheduled at " + j.Pos.String() + ")"
		f, ok := install.FindingOf(err, what)
		if !ok {
			continue
		}
		if f.Rule == install.RuleInstallFailed {
			f.Rule, f.Phase, f.Severity = RuleCronJobFailed, finding.PhaseBodies, severity(RuleCronJobFailed)
			var se *scratch.ScriptError
			if errors.As(err, &se) && se.SelfInflicted() == nil && se.PgError() != nil {
				pe := se.PgError()
				f.Message = fmt.Sprintf("%s fails when it runs: %s (SQLSTATE %s)", what, pe.Message, pe.Code)
			}
			f.Message += "; it fails each time the job runs, after the migration itself installed (pg_cron runs the command later, in a transaction of its own)"
		}
		out = append(out, f)
	}
	return out
}
