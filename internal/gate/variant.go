package gate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/audit"
	"github.com/ledgercheck/ledgercheck/internal/crosscheck"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/observe"
	"github.com/ledgercheck/ledgercheck/internal/parity"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/probe"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/rerun"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// variantRun is one variant going through the pipeline: what each of its steps returned, as
// it returned it. The report is built from these ([assemble]); no step edits another's result.
type variantRun struct {
	v       Variant
	port    *Port         // the request's port this variant is; nil for the artifact
	file    *pgsql.File   // the parse lint and the cross-check read
	stmts   *locate.Index // the file's objects to its statements: where every finding points
	parseEr error
	lint    report.PhaseResult // lint's phase (when the request lints)

	roles       *scratch.RoleTurn // the variant's turn with the server's roles (roles.go), when its file names roles of its own
	installed   parity.Installed
	environment environmentRows // the environment's tables around the install (with the audit)
	installErr  error           // the variant (or a file it needs) that does not install: a finding
	installFile string
	installWhat string // how the finding names the script
	fixtureErr  error
	fresh       *introspect.Snapshot
	crossCheck  []finding.Finding
	audit       *audited
	jobs        []sqlscript.Job     // the pg_cron jobs the file schedules, run after each install of it
	jobFailed   []error             // the install's: each job's failure, nil when it ran
	bodies      *report.PhaseResult // the check of the installed code (bodies.go)
	rerun       *report.PhaseResult // the rerun audit's phase
	upgrade     *report.PhaseResult // the upgrade audit's phase (skipped without a previous version)
	rerunTook   time.Duration       // both audits, from the variant's start
	live        *liveSide           // the database at the variant's DSN
	locks       lockRuns            // the lock trace's runs and phase (locks.go)
}

// audited is the audit step's result.
type audited struct {
	// static are lint's findings less those on objects the install shows the file created
	// (crosscheck.Owned): what lint reports once the install is known, and the facts the audit
	// does not repeat.
	static    []finding.Finding
	phase     report.PhaseResult
	confirmed []audit.Confirmation // facts the audit found that lint's static findings stand for
	observed  []observe.Confirmation
}

// parseAndLint parses the variant (once) and, when lints, lints the parse (vector dimensions
// checked against dim when positive).
func (r *variantRun) parseAndLint(cfg lint.Config, lints bool, dim, postgres int, say func(string, ...any)) {
	if r.v.File == "" { // a database only
		return
	}
	s0 := time.Now()
	r.file, r.parseEr = pgsql.Parse(r.v.File, r.v.Src)
	if r.parseEr == nil {
		r.stmts = locate.New(r.file)
	}
	if !lints {
		return
	}
	fs := lint.Parsed(r.v.File, r.file, r.parseEr, cfg, lint.Options{Dim: dim, Postgres: postgres})
	r.lint = report.PhaseResult{Phase: finding.PhaseLint, Name: "lint " + r.v.Name, File: r.v.File, Duration: time.Since(s0), Findings: fs}
	say("%s", report.ProgressLine(&r.lint)) // as the table shows the phase (report.ProgressLine)
}

// variant takes one variant through its sequence of steps, each called from here: read its
// database (a DSN), install (footprint), audit, fixture, probes, cross-check, rerun and upgrade
// audits. Each step that the request does not ask for does nothing.
func (p *pipeline) variant(ctx context.Context, r *variantRun) error {
	t0 := time.Now()
	v := r.v
	if v.DSN != "" {
		var err error
		if r.live, err = readLive(ctx, v); err != nil {
			return err
		}
		p.say("%s: read from %s (PostgreSQL %s), read-only, in %s", v.Name, r.live.where, r.live.version, report.FormatDuration(time.Since(t0)))
		if v.File == "" {
			return nil
		}
	}
	db, err := p.newDatabase(ctx, v)
	if err != nil {
		// A prerequisite file that does not install is the variant's install-failed finding;
		// with no database there is nothing more to run.
		return r.failed(ctx, err)
	}
	defer dropDatabase(ctx, db)
	// One superuser session of the database serves every snapshot, the audit and the rerun
	// audit's snapshots and digests: a session that has read the catalog reads it again at a
	// fraction of the cost of a new one. User SQL runs on sessions of its own.
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// One session of the reader role reads table contents: the environment's tables around the
	// install, then the rerun audit's digests.
	content, err := p.contentReader(ctx, db)
	if err != nil {
		return err
	}
	if content != nil {
		defer content.Close(context.WithoutCancel(ctx))
	}
	sc, scErr := r.script()
	ropts := p.rerunOptions(r, sc)
	if namesRoles(r.file) {
		if r.roles, err = p.srv.TakeRoles(ctx); err != nil {
			return err
		}
		defer r.roles.Done(ctx) //nolint:errcheck // ended below, before the upgrade audit is waited for
	}
	// The upgrade audit's database is independent of this one: it runs while this one is
	// installed, audited, loaded and probed.
	up := p.startUpgrade(ctx, ropts)
	defer up.stop()
	if err := p.install(ctx, r, db, conn, content, sc, scErr); err != nil {
		if err := r.failed(ctx, err); err != nil {
			return err
		}
		// The rerun audit reports that it has nothing to rerun (the report folds it into the
		// install's finding when it shows that).
		err := p.rerun(ctx, r, rerun.Prepared{DB: db, Install: r.installErr, Took: time.Since(t0), Reader: conn, Content: content}, ropts, noReaders)
		return errors.Join(err, r.roles.Done(ctx), p.upgrade(r, up, t0))
	}
	if err := p.afterInstall(ctx, r, db, conn, content, sc, ropts, t0); err != nil {
		return err
	}
	// The upgrade audit may wait for the server's roles: the variant's turn ends first.
	if err := r.roles.Done(ctx); err != nil {
		return err
	}
	if err := p.upgrade(r, up, t0); err != nil {
		return err
	}
	return p.finishLocks(ctx, r, db, sc)
}

// afterInstall is the sequence of a variant that installed: the audit (its own install's
// answers now, the other privilege models' installs beside what follows), the fixture, the
// probes (beside the rerun audit's baseline), the cross-check, the rerun audit, and the audit's
// answers merged.
func (p *pipeline) afterInstall(ctx context.Context, r *variantRun, db *scratch.Database, conn, content *pgx.Conn, sc *scratch.Script, ropts rerun.Options, t0 time.Time) error {
	checks := p.startBodies(ctx, r, db)
	au, err := p.startAudit(ctx, r, db, conn, sc)
	if err != nil {
		return errors.Join(err, checks.wait())
	}
	defer au.close(ctx)
	if err := p.loadFixture(ctx, r, db); err != nil {
		return errors.Join(err, checks.wait())
	}
	// The probes only read the database (each in a transaction rolled back), so they run beside
	// the rerun audit's baseline; the rerun waits for them, and for the audit's other installs,
	// before it changes the database.
	probes := p.startProbes(ctx, r, db)
	readers := func() error {
		err := probes.wait()
		au.waitInstalls()
		return err
	}
	if p.steps.CrossCheck && r.file != nil {
		r.crossCheck = append(crosscheck.Check(r.file, p.lint, r.installed.Footprint),
			crosscheck.Installed(r.file, p.lint, r.installed.Footprint, r.fresh, r.stmts)...)
	}
	loaded := " and fixture loaded"
	if p.fixture == nil {
		loaded = " (no fixture)"
	}
	p.say("%s: %s at dimension %d installed%s in %s", r.v.Name, r.v.File, r.v.Dim, loaded, report.FormatDuration(time.Since(t0)))
	// Without a fixture, the rerun audit fills the tables the install created (not in the
	// template's snapshot, which the install step read) with generated rows.
	var tmpl *introspect.Snapshot
	if p.steps.Rerun {
		if tmpl, err = p.templateSnapshot(ctx, db, conn); err != nil {
			return errors.Join(err, readers(), checks.wait())
		}
	}
	// The bodies step is over before the rerun audit takes its baseline: no snapshot of it holds
	// plpgsql_check.
	if err := checks.wait(); err != nil {
		return errors.Join(err, readers())
	}
	prep := rerun.Prepared{DB: db, Fixture: r.fixtureErr, Fresh: r.fresh, Template: tmpl, Took: time.Since(t0), Reader: conn, Content: content}
	if err := errors.Join(p.rerun(ctx, r, prep, ropts, readers), readers()); err != nil {
		return err
	}
	if au != nil {
		if au.ownObs, err = p.observeOwn(ctx, r, db, conn); err != nil {
			return err
		}
	}
	return p.finishAudit(ctx, r, au)
}

// scriptFailure is the failure of the script File to install (Err), for [variantRun.failed];
// What names the script in the finding ("the migration", "a prerequisite (FILE)", "the fixture
// (FILE)").
type scriptFailure struct {
	File, What string
	Err        error
}

func (e *scriptFailure) Error() string { return e.File + ": " + e.Err.Error() }
func (e *scriptFailure) Unwrap() error { return e.Err }

// failed records the first script that does not install (a finding: install-failed), and
// returns any other error, which ends the run.
func (r *variantRun) failed(ctx context.Context, err error) error {
	var sf *scriptFailure
	if !errors.As(err, &sf) {
		return err
	}
	if _, ok := install.Finding(sf.Err); !ok || ctx.Err() != nil {
		return sf.Err
	}
	r.installErr, r.installFile, r.installWhat = sf.Err, sf.File, sf.What
	return nil
}

// installFinding is the finding of the script that did not install: the variant's, or a
// prerequisite's, which the finding names.
func (r *variantRun) installFinding() finding.Finding {
	f, _ := install.FindingOf(r.installErr, r.installWhat)
	return f
}

// script returns the variant's statements as its install runs them, at its dimension; the error
// is the file's syntax error, or what only psql can run.
func (r *variantRun) script() (*scratch.Script, error) {
	if r.parseEr != nil {
		return nil, r.parseEr
	}
	f, err := sqlscript.Reuse(r.file, r.v.Src, r.v.Dim)
	if err != nil {
		return nil, err
	}
	r.jobs = sqlscript.Jobs(f)
	return sqlscript.Script(f), nil
}

// install is the install step: it runs the variant's statements sc (or reports scErr, the error
// of reading them: see [variantRun.script]) in db and takes its footprint from the catalog db
// started from, on conn (a superuser session of db's); with the audit, the environment's tables
// are read before and after it on content (the reader role's). A script that does not install
// is a *scriptFailure.
func (p *pipeline) install(ctx context.Context, r *variantRun, db *scratch.Database, conn, content *pgx.Conn, sc *scratch.Script, scErr error) error {
	v := r.v
	r.installed = parity.Installed{Name: v.Name, File: v.File, Dim: v.Dim, Server: p.srv.Version(), Statements: r.stmts}
	before, err := p.beforeInstall(ctx, db, conn)
	if err != nil {
		return err
	}
	if scErr != nil {
		return &scriptFailure{v.File, "the migration", scErr}
	}
	r.installed.Source = r.file
	audits := p.steps.Audit && r.file != nil
	if err := r.environment.read(ctx, db, content, audits, true); err != nil {
		return err
	}
	r.installed.Footprint, r.fresh, err = install.FootprintThen(ctx, db, conn, p.traced(r, sc, "install", conn), before, introspect.Options{}, r.runJobs(db))
	if err != nil {
		return &scriptFailure{v.File, "the migration", err}
	}
	return r.environment.read(ctx, db, content, audits, false)
}

// loadFixture is the fixture step: the request's fixture, loaded into db. A fixture that does
// not load is the variant's install-failed finding (and the rerun audit's).
func (p *pipeline) loadFixture(ctx context.Context, r *variantRun, db *scratch.Database) error {
	fx := p.fixture
	if fx == nil {
		return nil
	}
	if err := sqlscript.ExecFile(ctx, db, fx.Name, fx.Src); err != nil {
		if err := r.failed(ctx, &scriptFailure{fx.Name, "the fixture (" + fx.Name + ")", err}); err != nil {
			return err
		}
		r.fixtureErr = err
	}
	return nil
}

// beside is work running beside the variant's sequence; wait waits for it and returns its error
// (the same each time).
type beside struct {
	done chan struct{}
	err  error
}

func (b *beside) wait() error { <-b.done; return b.err }

// noReaders is the readers of a database where nothing runs beside the rerun audit.
func noReaders() error { return nil }

// startProbes is the probes step: each probe on db, in a transaction rolled back, in the
// background. Without parity, or over a fixture that did not load, there are none.
func (p *pipeline) startProbes(ctx context.Context, r *variantRun, db *scratch.Database) *beside {
	b := &beside{done: make(chan struct{})}
	if r.fixtureErr != nil || !p.steps.Parity {
		close(b.done)
		return b
	}
	go func() {
		defer close(b.done)
		defer fault.Recover(&b.err)
		t0 := time.Now()
		r.installed.Rows, r.installed.Errs, b.err = probe.Run(ctx, db, p.probes, r.v.Dim)
		if b.err == nil {
			p.say("%s: %d probes run in %s", r.v.Name, len(r.installed.Rows), report.FormatDuration(time.Since(t0)))
		}
	}()
	return b
}

// rerunOptions are the options of the variant's rerun and upgrade audits; sc is its script
// (nil when it does not parse).
func (p *pipeline) rerunOptions(r *variantRun, sc *scratch.Script) rerun.Options {
	v := r.v
	opts := rerun.Options{File: rerun.SQLFile{Name: v.File, Src: v.Src}, Dim: v.Dim, Times: p.times, Script: sc, Jobs: r.jobs, Statements: r.stmts, Base: p.base, Logf: p.logf, NoPrevious: v.NoPrevious,
		Observe: p.observe(r)}
	if v.Previous != nil {
		opts.Previous = &rerun.SQLFile{Name: v.Previous.Name, Src: v.Previous.Src}
		if namesRoles(r.file) || previousNamesRoles(v.Previous) {
			opts.Exclusive = p.exclusive
		}
	}
	if fx := p.fixture; fx != nil {
		opts.Fixture = &rerun.SQLFile{Name: fx.Name, Src: fx.Src}
	}
	return opts
}

// rerun is the rerun audit step on the variant's database: the audit's own steps, in the order
// the database allows. readers waits for what still reads the database as the install left it
// (the probes, the audit's other installs): the baseline is taken beside them, generated rows
// and runs 2..N after them.
func (p *pipeline) rerun(ctx context.Context, r *variantRun, prep rerun.Prepared, opts rerun.Options, readers func() error) error {
	if !p.steps.Rerun {
		return nil
	}
	rr, err := rerun.Begin(ctx, p.srv, prep, opts)
	if err != nil {
		return fmt.Errorf("rerun audit of %s: %w", r.v.File, err)
	}
	defer rr.Close()
	steps := []func(context.Context) error{rr.Baseline, func(context.Context) error { return readers() }, rr.Runs}
	if opts.Fixture == nil {
		steps = []func(context.Context) error{func(context.Context) error { return readers() }, rr.Fill, rr.Baseline, rr.Runs}
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return fmt.Errorf("rerun audit of %s: %w", r.v.File, err)
		}
	}
	ph := rr.Phase()
	r.rerun = &ph
	return nil
}

// upgradeRun is the variant's upgrade audit, running in a database of its own.
type upgradeRun struct {
	*rerun.Upgrade
	cancel func()
}

// startUpgrade starts the upgrade audit step (nil when the request does not rerun).
func (p *pipeline) startUpgrade(ctx context.Context, opts rerun.Options) *upgradeRun {
	if !p.steps.Rerun {
		return nil
	}
	uctx, cancel := context.WithCancel(ctx)
	return &upgradeRun{Upgrade: rerun.StartUpgrade(uctx, p.srv, opts), cancel: cancel}
}

// stop stops the upgrade audit, if it still runs, and waits for it.
func (u *upgradeRun) stop() {
	if u != nil {
		u.cancel()
		u.Wait()
	}
}

// upgrade ends the upgrade audit step: its phase, compared with the variant's fresh install.
func (p *pipeline) upgrade(r *variantRun, u *upgradeRun, t0 time.Time) error {
	if u == nil {
		return nil
	}
	ph, err := u.Phase(r.fresh)
	if err != nil {
		return fmt.Errorf("upgrade audit of %s: %w", r.v.File, err)
	}
	r.upgrade, r.rerunTook = &ph, time.Since(t0)
	p.sayRerun(r)
	return nil
}

// each runs f on every variant in a goroutine of its own and waits. An error, or a panic (as a
// *fault.PanicError), of one calls cancel (when not nil) so that the others stop. The error
// returned is the first to arrive, which is the cause: the others' errors (a connection cut
// short, a context cancelled) are its consequences.
func each(runs []*variantRun, f func(*variantRun) error, cancel func()) error {
	g := fault.Group{Cancel: cancel}
	for _, r := range runs {
		g.Go(func() error { return f(r) })
	}
	return g.Wait()
}
