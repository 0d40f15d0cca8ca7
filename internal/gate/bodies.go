package gate

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/bodies"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// The check of the installed code (internal/bodies) and the pg_cron jobs the file schedules.
// The jobs run once in every install of the variant's file, after it and before anything reads
// the database (the install's snapshot, the install under the other privilege model, the
// upgrade), so that what they do is audited, cross-checked, compared and rerun like the file's
// own (the reruns apply the file alone: a job runs on its schedule, and what it did must survive
// the migration applied again); the bodies step, when the request has it, checks the install right after it,
// before the audit, and reports the jobs that failed.

// runJobs is the install's work after the file: the commands of the jobs it schedules, each
// once, their failures kept for the bodies phase.
func (r *variantRun) runJobs(db *scratch.Database) func(context.Context) error {
	if len(r.jobs) == 0 {
		return nil
	}
	return func(ctx context.Context) error {
		var err error
		r.jobFailed, err = sqlscript.RunJobs(ctx, db, r.jobs)
		return err
	}
}

// checkBodies is the bodies step: the phase "bodies VARIANT" of an install, taken on db with
// conn (the variant's superuser session) before the audit reads the database.
func (p *pipeline) checkBodies(ctx context.Context, r *variantRun, db *scratch.Database, conn *pgx.Conn) error {
	if !p.steps.Bodies || r.file == nil {
		return nil
	}
	in := bodies.Input{File: r.file, Statements: r.stmts, Footprint: r.installed.Footprint, Fresh: r.fresh, Lint: p.lint,
		Jobs: bodies.JobFindings(r.jobs, r.jobFailed)}
	ph, err := bodies.Check(ctx, db, conn, in, r.v.Name)
	if err != nil {
		return err
	}
	r.bodies = &ph
	p.say("%s: installed code checked, %d findings in %s", r.v.Name, len(ph.Findings), report.FormatDuration(ph.Duration))
	return nil
}

// bodiesPhases is the variant's phase "bodies VARIANT" in the report: checked, or skipped
// because the variant does not install.
func bodiesPhases(steps Steps, r *variantRun) []report.PhaseResult {
	switch {
	case r.bodies != nil:
		return []report.PhaseResult{clonePhase(*r.bodies)}
	case steps.Bodies && r.file != nil && r.installErr != nil:
		return []report.PhaseResult{notInstalled(r, finding.PhaseBodies, "bodies "+r.v.Name)}
	}
	return nil
}
