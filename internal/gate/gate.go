package gate

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/locks"
	"github.com/ledgercheck/ledgercheck/internal/parity"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/probe"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// SQLFile is a SQL file: its name as the user gave it (used in positions) and its content.
type SQLFile struct {
	Name string
	Src  []byte
}

// Variant is one install of the migration: the artifact or a port.
type Variant struct {
	// Name names the variant in phase names and messages: "artifact", "port".
	Name string
	// File is the migration as the user named it (positions use it); Src is its content.
	File string
	Src  []byte
	// Dim is the variant's vector dimension.
	Dim int
	// Previous, when not nil, is the previous version of File, for the upgrade audit.
	Previous *SQLFile
	// NoPrevious, with a nil Previous, says why there is none (the upgrade's note); "": none
	// was given.
	NoPrevious string
	// DSN, when set, is a database that holds this variant (a deployment), only read: parity
	// compares what it holds instead of File's install. File, when also set, is what was
	// deployed, and goes through the pipeline as usual (its install serves the comparison's
	// scope, declared signatures and probes); "" compares the database alone.
	DSN string
}

// Label is the variant's name and dimension, e.g. "artifact (1536)".
func (v Variant) Label() string { return fmt.Sprintf("%s (%d)", v.Name, v.Dim) }

// Port is a variant compared with the artifact, through its own allowlist.
type Port struct {
	Variant
	// Allowlist is the reviewed differences between the artifact and this port; nil accepts
	// nothing.
	Allowlist *allowlist.File
}

// Steps selects the parts of the pipeline a request runs; every command is a subset of check's.
type Steps struct {
	// Lint lints each variant (no database).
	Lint bool
	// CrossCheck cross-checks each install against lint's reading of the file ("lint installed
	// VARIANT").
	CrossCheck bool
	// Audit runs the installed security audit on each install ("audit VARIANT").
	Audit bool
	// Parity compares each port with the artifact, probes included.
	Parity bool
	// Rerun audits each variant's reruns, and the upgrade from its previous version.
	Rerun bool
	// Locks traces the locks each statement of the install (and of each rerun and the upgrade,
	// when they run) takes on the tables that existed before the file ("locks VARIANT").
	Locks bool
	// Bodies checks the code each install created ("bodies VARIANT"): its PL/pgSQL bodies with
	// plpgsql_check, its views and SQL functions planned, its pg_cron jobs that failed.
	Bodies bool
}

// Request is what a command asks of the gate: the variants, what to run on them, and how.
type Request struct {
	// Artifact is the migration under review; Ports are compared with it, each through its own
	// allowlist (any number; none checks the artifact alone, as the rerun command does).
	Artifact Variant
	Ports    []Port
	// Steps are the parts of the pipeline to run.
	Steps Steps
	// Lint is the lint configuration, for lint and the cross-check.
	Lint lint.Config
	// NoOpenBrain leaves the Open Brain prerequisites out of every database: the Supabase
	// environment only (prerequisites.openbrain: false).
	NoOpenBrain bool
	// Prerequisites are SQL files run in order in every database, after the Open Brain
	// prerequisites and before the variant, as the install role with `:dim` substituted
	// (prerequisites.files): another sidecar the migrations depend on. They go into each
	// dimension's template, so they run once per dimension. What they create exists for lint's
	// ownership rules.
	Prerequisites []SQLFile
	// Fixture is loaded into every install after the variant; nil loads none.
	Fixture *SQLFile
	// Probes run on every install after the fixture, each in a transaction rolled back.
	Probes []probe.Probe
	// Times is how many times the rerun audit applies each variant, the install included (0:
	// rerun.DefaultTimes).
	Times int
	// TableStats, when not nil, are production's sizes per table, which grade the locks phase's
	// locks (--table-stats); nil grades them by the fixture's.
	TableStats *locks.Stats
	// LockAccept are the reviewed locks (locks.accept), and SlowStatement how long a statement
	// runs to be slow (locks.slow_statement; 0: locks.DefaultSlow).
	LockAccept    []locks.Acceptance
	SlowStatement time.Duration
	// Postgres is the PostgreSQL major version the run asks for (0: none, 15's rules), for lint
	// (see lint.Options.Postgres); Start starts a server of that version.
	Postgres int
	// Start starts the scratch server with the templates the run will use (for the cache across
	// runs); it runs while the variants are linted. Run closes the server before it returns. Nil
	// when no step needs a database.
	Start func(ctx context.Context, templates []scratch.TemplateSpec) (*scratch.Server, error)
	// Server, when not nil, is a running server used instead of Start, and left running (tests
	// share one).
	Server *scratch.Server
	// Logf receives progress lines with step timings; nil discards them. It is called from
	// several goroutines, one call at a time.
	Logf func(format string, args ...any)
	// Command names the command in the gate's own progress lines ("check", "parity", "rerun",
	// "lint"; default "check", "lint" for [Lint]). It is not folded into Logf: the steps log
	// through Logf too, with prefixes of their own ("rerun: applying ...", "linting FILE").
	Command string
	// Tool, Version and Root are copied into the report.
	Tool, Version, Root string
}

// Result is a run's report, and the parity comparison of each port (for allowlist suggest);
// an entry is nil when an install failed.
type Result struct {
	Report *report.Report
	Parity []*parity.Report
}

// Run runs the request and returns its report, check's way: one rerun phase per variant (its
// rerun and upgrade audits together). The pipeline (docs/architecture.md):
//
//  1. each variant is parsed once, and linted, while the scratch server boots;
//  2. each variant goes through its own sequence of steps ([pipeline.variant]) in ONE database
//     of its own (a copy of its dimension's template, whose snapshot is taken once): install
//     and footprint, the audit, fixture, probes (each rolled back), the cross-check, then the
//     rerun audit's runs 2..N on the same database; a variant with a previous version gets one
//     more database, for the upgrade audit. The variants run side by side;
//  3. each port is compared with the artifact through its allowlist;
//  4. the report is built from the request and what each step returned ([assemble]).
//
// A variant that does not install is a finding (rule install-failed). The error is for what the
// user must fix outside the migrations: no Postgres, a server that fails, an interrupted run.
func Run(ctx context.Context, req Request) (*Result, error) { return run(ctx, req, together) }

// Rerun runs the request as the rerun command does: the rerun step alone, and each variant's
// rerun and upgrade audits reported as phases of their own ("rerun FILE", "upgrade from
// PREVIOUS").
func Rerun(ctx context.Context, req Request) (*Result, error) {
	req.Steps = Steps{Rerun: true}
	return run(ctx, req, apart)
}

// run is [Run] and [Rerun], which differ only in how the report lays the rerun audits out.
func run(ctx context.Context, req Request, layout rerunLayout) (*Result, error) {
	t0 := time.Now()
	req.Lint = withPrerequisites(req.Lint, req.Prerequisites)
	logf, say := progress(req.Logf, cmp.Or(req.Command, "check"))
	art := &variantRun{v: req.Artifact}
	runs := []*variantRun{art}
	for i := range req.Ports {
		runs = append(runs, &variantRun{v: req.Ports[i].Variant, port: &req.Ports[i]})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	needDB := req.Steps.CrossCheck || req.Steps.Audit || req.Steps.Parity || req.Steps.Rerun || req.Steps.Locks || req.Steps.Bodies
	base := baseFor(req.NoOpenBrain, req.Prerequisites)
	boot := startServer(ctx, req.Start, req.Server, Templates(req), needDB, say)
	defer boot.close()

	// 1. Parse (once) and lint each variant while the server boots.
	if err := each(runs, func(r *variantRun) error {
		r.parseAndLint(req.Lint, req.Steps.Lint, r.v.Dim, req.Postgres, say)
		return nil
	}, nil); err != nil {
		return nil, fmt.Errorf("lint: %w", err)
	}
	srv, err := boot.wait()
	if err != nil {
		return nil, err
	}
	if boot.own && srv != nil {
		srv.LeaveDatabasesToClose() // closed as soon as the run ends
	}
	var ports []portRun
	if needDB {
		// 2. One database per variant, side by side; 3. each port against the artifact.
		p := &pipeline{steps: req.Steps, lint: req.Lint, fixture: req.Fixture, probes: req.Probes, times: req.Times,
			srv: srv, logf: logf, say: say, base: base, before: map[int]*snapshotOnce{}, tableStats: req.TableStats, lockAccept: req.LockAccept, slow: req.SlowStatement}
		if err := each(runs, func(r *variantRun) error { return p.variant(ctx, r) }, cancel); err != nil {
			return nil, err
		}
		if req.Steps.Parity {
			if ports, err = p.parityAll(art, runs); err != nil {
				return nil, err
			}
		}
	}
	// 4. The report, from the request and the runs.
	rep := assemble(req, runs, ports, layout)
	if needDB {
		rep.Servers = []report.Server{serverOf(srv, names(runs))}
	}
	rep.Duration = time.Since(t0)
	rep.Finish()
	res := &Result{Report: rep}
	for _, pr := range ports {
		res.Parity = append(res.Parity, pr.compared)
	}
	say("%s in %s (server boot %s)", rep.Status(), report.FormatDuration(rep.Duration), report.FormatDuration(boot.took))
	return res, nil
}

// progress returns the run's progress functions: logf, req.Logf one call at a time (the
// phases' lines; nil discards them), and say, a line of the gate's own prefixed with command.
func progress(reqLogf func(string, ...any), command string) (logf, say func(string, ...any)) {
	var mu sync.Mutex
	logf = func(format string, args ...any) {
		if reqLogf == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		reqLogf(format, args...)
	}
	return logf, func(format string, args ...any) { logf(command+": "+format, args...) }
}

// names are the names of the variants of runs.
func names(runs []*variantRun) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.v.Name
	}
	return out
}

// booting is the scratch server starting while the variants are linted.
type booting struct {
	started chan struct{}
	srv     *scratch.Server
	err     error
	took    time.Duration
	own     bool // started here, so closed here
	say     func(string, ...any)
}

// startServer starts the server with start in a goroutine of its own, or takes running, the
// request's running one; when no step needs a database there is none.
func startServer(ctx context.Context, start func(context.Context, []scratch.TemplateSpec) (*scratch.Server, error), running *scratch.Server, templates []scratch.TemplateSpec, needDB bool, say func(string, ...any)) *booting {
	b := &booting{started: make(chan struct{}), say: say}
	if !needDB || running != nil {
		b.srv = running
		close(b.started)
		return b
	}
	b.own = true
	go func() {
		defer close(b.started)
		defer fault.Recover(&b.err)
		s0 := time.Now()
		b.srv, b.err = start(ctx, templates)
		b.took = time.Since(s0)
		if b.err == nil {
			say("server ready in %s", report.FormatDuration(b.took))
		}
	}()
	return b
}

// wait returns the server once it is up.
func (b *booting) wait() (*scratch.Server, error) {
	<-b.started
	return b.srv, b.err
}

// close stops the server it started (after it is up, if it is still starting).
func (b *booting) close() {
	<-b.started
	if !b.own || b.srv == nil {
		return
	}
	if err := b.srv.Close(); err != nil {
		b.say("stopping the scratch server: %v", err)
	}
}

// pipeline is the database part of a run: what every variant's sequence of steps needs (the
// steps to run, the server, the snapshot of each template). check, parity and rerun ([Run])
// and lint --install ([Lint]) take their variants through the same [pipeline.variant].
type pipeline struct {
	steps   Steps
	lint    lint.Config
	fixture *SQLFile
	probes  []probe.Probe
	times   int
	// tableStats, lockAccept and slow grade and accept the locks phase's locks (Request's).
	tableStats *locks.Stats
	lockAccept []locks.Acceptance
	slow       time.Duration
	// setup, when not nil, runs in each database before the variant is installed (and before
	// the snapshot its footprint starts from): what a file needs beyond the prerequisites.
	setup func(ctx context.Context, db *scratch.Database) error

	srv  *scratch.Server
	logf func(string, ...any) // the phases' progress lines
	say  func(string, ...any) // the gate's own

	base scratch.Base // what every database starts from (the request's prerequisites)

	mu     sync.Mutex
	before map[int]*snapshotOnce // by dimension
	bases  map[string]*baseOnce  // the templates' observations, by dimension and model (observe.go)
}

// snapshotOnce is the snapshot of a template, taken once from the first database copied from
// it, before anything is installed: every database of that dimension starts as that snapshot.
type snapshotOnce struct {
	once sync.Once
	snap *introspect.Snapshot
	err  error
}

// templateSnapshot returns the snapshot of db's template: the template's description (see
// describeTemplate) or, when it has none, the snapshot of db (which must be a fresh copy) taken
// on conn, a superuser session of db's, the first time.
func (p *pipeline) templateSnapshot(ctx context.Context, db *scratch.Database, conn *pgx.Conn) (*introspect.Snapshot, error) {
	key := db.Dim
	p.mu.Lock()
	s := p.before[key]
	if s == nil {
		s = &snapshotOnce{}
		p.before[key] = s
	}
	p.mu.Unlock()
	s.once.Do(func() {
		if b := p.srv.TemplateDescription(db.Dim, p.base); b != nil {
			var snap introspect.Snapshot
			if err := json.Unmarshal(b, &snap); err == nil {
				s.snap = &snap
				return
			}
		}
		s.snap, s.err = install.SnapshotOn(ctx, db, conn, introspect.Options{})
	})
	return s.snap, s.err
}

// describeTemplate is the scratch.Base.Describe of every template: its catalog snapshot, as
// templateSnapshot takes it of a fresh copy, in JSON. Taken on the session that built the
// template, and kept in the cache entry, it spares each run a snapshot of a fresh database.
func describeTemplate(ctx context.Context, conn *pgx.Conn, db *scratch.Database) ([]byte, error) {
	snap, err := install.SnapshotOn(ctx, db, conn, introspect.Options{})
	if err != nil {
		return nil, err
	}
	return json.Marshal(snap)
}

// newDatabase returns a database for v at its dimension, with the request's prerequisites and
// what setup adds. A prerequisite file that does not install is a *scriptFailure.
func (p *pipeline) newDatabase(ctx context.Context, v Variant) (*scratch.Database, error) {
	db, err := p.srv.NewDatabaseFrom(ctx, v.Dim, p.base)
	if err != nil || p.setup == nil {
		return db, err
	}
	if err := p.setup(ctx, db); err != nil {
		dropDatabase(ctx, db)
		return nil, err
	}
	return db, nil
}

// dropDatabase drops db, given 30 seconds even when ctx is done; the server drops leftovers
// on Close.
func dropDatabase(ctx context.Context, db *scratch.Database) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_ = db.Drop(dctx)
}

// beforeInstall is the catalog db starts from: its template's snapshot, or, when setup changed
// db, its own, taken on conn.
func (p *pipeline) beforeInstall(ctx context.Context, db *scratch.Database, conn *pgx.Conn) (*introspect.Snapshot, error) {
	if p.setup != nil {
		return install.SnapshotOn(ctx, db, conn, introspect.Options{})
	}
	return p.templateSnapshot(ctx, db, conn)
}

// withPrerequisites is the lint policy cfg with what the prerequisite files create counted as
// existing (lint.Config.WithPrerequisites). A prerequisite that does not parse adds what its
// statements before the error create; its install reports the error.
func withPrerequisites(cfg lint.Config, prereqs []SQLFile) lint.Config {
	files := make([]*pgsql.File, 0, len(prereqs))
	for _, x := range prereqs {
		f, _ := pgsql.Parse(x.Name, x.Src)
		files = append(files, f)
	}
	return cfg.WithPrerequisites(files...)
}

// baseFor is the scratch.Base of the Open Brain prerequisites (unless noOpenBrain) and then
// files, in order, one layer each: the template of a sidecar's needs is built from the template
// of a prefix of them when the run uses one (a chain of needs costs one install per template).
func baseFor(noOpenBrain bool, files []SQLFile) scratch.Base {
	b := scratch.Base{NoOpenBrain: noOpenBrain, Describe: describeTemplate}
	h := sha256.New()
	for _, x := range files {
		fmt.Fprintf(h, "%d:%s\x00%d:", len(x.Name), x.Name, len(x.Src))
		h.Write(x.Src)
		b.Layers = append(b.Layers, scratch.Layer{Key: hex.EncodeToString(h.Sum(nil)), Run: func(ctx context.Context, db *scratch.Database) error {
			if err := sqlscript.ExecFile(ctx, db, x.Name, x.Src); err != nil {
				return &scriptFailure{x.Name, "a prerequisite (" + x.Name + ")", err}
			}
			return nil
		}})
	}
	return b
}

// serverOf describes srv for the report, with what ran on it.
func serverOf(srv *scratch.Server, ran []string) report.Server {
	kind := "dsn"
	if srv.Embedded() {
		kind = "embedded"
	}
	return report.Server{Version: srv.Version(), Kind: kind, Ran: ran}
}

// InstallFinding turns a rejected statement or a syntax error into an install-failed finding;
// it reports false for any other error.
func InstallFinding(err error) (finding.Finding, bool) { return install.Finding(err) }
