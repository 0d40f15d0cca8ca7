package rerun

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// LoadCase is the golden cases' loader, for the external test that runs them through the gate.
var LoadCase = loadCase

// Result is what a standalone [Audit] found: its two phases, and their findings together.
type Result struct {
	// Findings are the problems, rerun audit first, each at the first run that shows it.
	Findings []finding.Finding
	// Runs is how many times File was applied successfully in the rerun audit.
	Runs  int
	Total time.Duration

	phases []report.PhaseResult
}

// Phases returns the phases "rerun FILE" and "upgrade from PREVIOUS" (or "upgrade", skipped).
func (r *Result) Phases() []report.PhaseResult { return slices.Clone(r.phases) }

// Failed reports whether any finding is an error (warnings do not fail the audit).
func (r *Result) Failed() bool {
	return slices.ContainsFunc(r.Findings, func(f finding.Finding) bool { return f.Severity == finding.SevError })
}

// Report returns the result as a report of its own (the rerun command's): the phases and the
// rules, with statuses derived from the findings.
func (r *Result) Report(tool, version string) *report.Report {
	rep := &report.Report{Tool: tool, Version: version, Phases: r.Phases(), Duration: r.Total}
	rep.Finish()
	return rep
}

// Audit runs the rerun audit in a database of its own, for the tests, with
// the steps in the order the gate calls them (the gate prepares its database itself), and, with
// [Options.Previous], the upgrade audit in another, concurrently.
func Audit(ctx context.Context, srv *scratch.Server, opts Options) (*Result, error) {
	if opts.Dim <= 0 {
		return nil, fmt.Errorf("rerun: dimension %d: want a positive dimension", opts.Dim)
	}
	if opts.Times == 0 {
		opts.Times = DefaultTimes
	}
	if opts.Times < 1 {
		return nil, fmt.Errorf("rerun: %d times: want at least 1", opts.Times)
	}
	if opts.File.Name == "" {
		return nil, errors.New("rerun: no migration file given")
	}
	a := newAuditor(srv, opts)
	t0 := time.Now()
	uctx, ucancel := context.WithCancel(ctx)
	up := StartUpgrade(uctx, srv, opts)
	defer func() { ucancel(); up.Wait() }()
	db, drop, err := a.newDatabase(ctx)
	if err != nil {
		return nil, err
	}
	defer drop()
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	p := Prepared{DB: db, Reader: conn}
	if opts.Fixture == nil {
		if p.Template, err = a.template(ctx, db, conn); err != nil {
			return nil, err
		}
	}
	a.logf("rerun: installing %s at dimension %d (run 1 of %d)", opts.File.Name, opts.Dim, opts.Times)
	if p.Install = a.exec(ctx, db, opts.File, opts.Script); p.Install == nil {
		if opts.Previous != nil || opts.Fixture == nil {
			s, err := a.capture(ctx, db, readers{catalog: conn}, catalog)
			if err != nil {
				return nil, err
			}
			p.Fresh = s.snap
		}
		if opts.Fixture != nil {
			a.logf("rerun: loading the fixture %s", opts.Fixture.Name)
			p.Fixture = a.exec(ctx, db, *opts.Fixture, nil)
		}
	}
	p.Took = time.Since(t0)
	rr, err := Begin(ctx, srv, p, opts)
	if err != nil {
		return nil, err
	}
	defer rr.Close()
	for _, step := range []func(context.Context) error{rr.Fill, rr.Baseline, rr.Runs} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	ug, err := up.Phase(p.Fresh)
	if err != nil {
		return nil, err
	}
	res := &Result{Runs: rr.out.runs, phases: []report.PhaseResult{rr.Phase(), ug}, Total: time.Since(t0)}
	for _, ph := range res.phases {
		res.Findings = append(res.Findings, ph.Findings...)
	}
	return res, nil
}
