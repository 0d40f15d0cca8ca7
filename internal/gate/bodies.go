package gate

import (
	"context"

	"github.com/ledgercheck/ledgercheck/internal/bodies"
	"github.com/ledgercheck/ledgercheck/internal/fault"
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

// startBodies starts the bodies step beside the audit, the fixture, the probes and the
// cross-check, none of which reads what it adds for a moment (plpgsql_check in a schema of its
// own, on a superuser session of its own: the variant's is the audit's): the phase "bodies
// VARIANT" of the install. The rerun waits for it before it takes its baseline, so that no
// snapshot ever holds the extension.
func (p *pipeline) startBodies(ctx context.Context, r *variantRun, db *scratch.Database) *beside {
	b := &beside{done: make(chan struct{})}
	if !p.steps.Bodies || r.file == nil {
		close(b.done)
		return b
	}
	in := bodies.Input{File: r.file, Statements: r.stmts, Footprint: r.installed.Footprint, Fresh: r.fresh, Lint: p.lint,
		Jobs: r.jobs, JobsFailed: r.jobFailed}
	go func() {
		defer close(b.done)
		defer fault.Recover(&b.err)
		admin, err := db.ConnectAdmin(ctx)
		if err != nil {
			b.err = err
			return
		}
		defer admin.Close(context.WithoutCancel(ctx))
		ph, err := bodies.Check(ctx, db, admin, in, r.v.Name)
		if b.err = err; err == nil {
			r.bodies = &ph
			p.say("%s: installed code checked, %d findings in %s", r.v.Name, len(ph.Findings), report.FormatDuration(ph.Duration))
		}
	}()
	return b
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
