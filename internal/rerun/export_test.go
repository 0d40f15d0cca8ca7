package rerun

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// LoadCase and StableReport are the golden cases' loader and renderer, for the external test that
// runs the same cases through the gate.
var (
	LoadCase     = loadCase
	StableReport = stableReport
)

// Failed reports whether any finding is an error (warnings do not fail the audit); the gate's
// verdict is its report's (report.Report.Failed).
func (r *Result) Failed() bool {
	return slices.ContainsFunc(r.Findings, func(f finding.Finding) bool { return f.Severity == finding.SevError })
}

// Audit runs the rerun audit, for the golden cases and the tests (the gate prepares the
// database itself and calls [AuditPrepared]), and, with [Options.Previous], the upgrade audit,
// each in its own scratch database of srv, concurrently. Problems with the migration (a failed statement, a
// changed catalog, lost rows) are findings in the result; the error is for everything else: an
// invalid option, a server that fails, a cancelled context.
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
	// The upgrade audit's database is independent of this one: it starts first, and runs while
	// this one is prepared.
	uctx, ucancel := context.WithCancel(ctx)
	up := StartUpgrade(uctx, srv, opts)
	defer func() { ucancel(); up.Wait() }()
	db, drop, err := a.newDatabase(ctx)
	if err != nil {
		return nil, err
	}
	defer drop()
	// One superuser session serves every snapshot and digest of the database.
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	p := Prepared{DB: db, Reader: conn, Upgrade: up}
	if opts.Fixture == nil {
		// The tables to fill are those the install creates: the catalog before it.
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
	return AuditPrepared(ctx, srv, p, opts)
}
