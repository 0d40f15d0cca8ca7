package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/audit"
	"github.com/ledgercheck/ledgercheck/internal/crosscheck"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/parity"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/rerun"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// Script is a SQL file: its name as the user gave it (used in positions) and its content.
type Script struct {
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
	Previous *Script
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
	// RerunApart reports the rerun and the upgrade audit as phases of their own ("rerun FILE",
	// "upgrade from PREVIOUS"), as the rerun command does; check shows one phase per variant.
	RerunApart bool
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
	Prerequisites []Script
	// Fixture is loaded into every install after the variant; nil loads none.
	Fixture *Script
	// Probes run on every install after the fixture, each in a transaction rolled back.
	Probes []parity.Probe
	// Times is how many times the rerun audit applies each variant, the install included (0:
	// rerun.DefaultTimes).
	Times int
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
	// Command names the command in progress lines ("check", "parity", "rerun"; default
	// "check").
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

// variantRun is one variant going through the pipeline.
type variantRun struct {
	v       Variant
	file    *pgsql.File   // the parse lint and the cross-check read
	stmts   *locate.Index // the file's objects to its statements: where every finding points
	parseEr error
	lint    report.PhaseResult

	installed   parity.Installed
	installErr  error // the variant (or an extra file) that does not install: a finding
	installFile string
	fixtureErr  error
	fresh       *introspect.Snapshot
	crossCheck  []finding.Finding
	audit       *report.PhaseResult
	rerun       *rerun.Result
	live        *liveSide                   // the database at the variant's DSN
	models      []*modelInstall             // the install under the audit's other privilege models
	finishAudit func(context.Context) error // the audit once the other models' installs are done
}

// Run runs the request and returns its report. The pipeline (docs/architecture.md):
//
//  1. each variant is parsed once, and linted, while the scratch server boots;
//  2. each variant is installed into ONE database of its own (a copy of its dimension's
//     template, whose snapshot is taken once): footprint, fixture, probes (each rolled back),
//     the cross-check, then the rerun audit's runs 2..N on the same database; a variant with a
//     previous version gets one more database, for the upgrade audit. The variants run side by
//     side;
//  3. each port is compared with the artifact through its allowlist.
//
// A variant that does not install is a finding (rule install-failed). The error is for what the
// user must fix outside the migrations: no Postgres, a server that fails, an interrupted run.
func Run(ctx context.Context, req Request) (*Result, error) {
	t0 := time.Now()
	req.Lint = withPrerequisites(req.Lint, req.Prerequisites)
	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		if req.Logf == nil {
			return
		}
		logMu.Lock()
		defer logMu.Unlock()
		req.Logf(format, args...)
	}
	command := req.Command
	if command == "" {
		command = "check"
	}
	// say is a progress line of the gate's own, prefixed with the command.
	say := func(format string, args ...any) { logf(command+": "+format, args...) }
	runs := []*variantRun{{v: req.Artifact}}
	for _, p := range req.Ports {
		runs = append(runs, &variantRun{v: p.Variant})
	}
	rep := &report.Report{Tool: req.Tool, Version: req.Version, Root: req.Root, LeftLabel: req.Artifact.Label()}
	if len(req.Ports) > 0 {
		rep.RightLabel = req.Ports[0].Label()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	needDB := req.Steps.CrossCheck || req.Steps.Audit || req.Steps.Parity || req.Steps.Rerun
	base := baseOf(req)
	boot := startServer(ctx, req, Templates(req), needDB, say)
	defer boot.close()

	// 1. Parse (once) and lint each variant while the server boots.
	if err := each(runs, func(r *variantRun) error { r.parseAndLint(req, say); return nil }, nil); err != nil {
		return nil, fmt.Errorf("lint: %w", err)
	}
	srv, err := boot.wait()
	if err != nil {
		return nil, err
	}
	if boot.own && srv != nil {
		srv.LeaveDatabasesToClose() // closed as soon as the run ends
	}
	if needDB {
		ran := make([]string, len(runs))
		for i, r := range runs {
			ran[i] = r.v.Name
		}
		rep.Servers = []report.Server{serverOf(srv, ran)}
	}

	// 2. One database per variant, side by side; 3. each port against the artifact.
	res := &Result{}
	p := &pipeline{req: req, srv: srv, logf: logf, say: say, base: base, before: map[int]*snapshotOnce{}}
	if needDB {
		if err := each(runs, func(r *variantRun) error { return p.variant(ctx, r) }, cancel); err != nil {
			return nil, err
		}
	}
	if needDB {
		if err := p.report(rep, res, runs); err != nil {
			return nil, err
		}
	}
	// The lint phases come first, each from its own variant's run once every step is done and
	// reported: the audit drops from them what the install showed the file owns, and a rerun
	// failure folded into a lint finding says so there. A variant read from a database alone
	// has no file, so no lint phase.
	if req.Steps.Lint {
		var lints []report.PhaseResult
		for _, r := range runs {
			if r.v.File != "" {
				lints = append(lints, r.lint)
			}
		}
		rep.Phases = append(lints, rep.Phases...)
	}
	rep.Duration = time.Since(t0)
	rep.Finish()
	res.Report = rep
	say("%s in %s (server boot %s)", rep.Status(), report.FormatDuration(rep.Duration), report.FormatDuration(boot.took))
	return res, nil
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

// startServer starts the request's server in a goroutine of its own, or takes its running one;
// when no step needs a database there is none.
func startServer(ctx context.Context, req Request, templates []scratch.TemplateSpec, needDB bool, say func(string, ...any)) *booting {
	b := &booting{started: make(chan struct{}), say: say}
	if !needDB || req.Server != nil {
		b.srv = req.Server
		close(b.started)
		return b
	}
	b.own = true
	go func() {
		defer close(b.started)
		defer fault.Recover(&b.err)
		s0 := time.Now()
		b.srv, b.err = req.Start(ctx, templates)
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

// parseAndLint parses the variant (once) and, when the request lints, lints the parse.
func (r *variantRun) parseAndLint(req Request, say func(string, ...any)) {
	if r.v.File == "" { // a database only
		return
	}
	s0 := time.Now()
	r.file, r.parseEr = pgsql.Parse(r.v.File, r.v.Src)
	if r.parseEr == nil {
		r.stmts = locate.New(r.file)
	}
	if !req.Steps.Lint {
		return
	}
	fs := lint.Parsed(r.v.File, r.file, r.parseEr, req.Lint, lint.Options{Dim: r.v.Dim, Postgres: req.Postgres})
	r.lint = report.PhaseResult{Phase: finding.PhaseLint, Name: "lint " + r.v.Name, File: r.v.File, Duration: time.Since(s0), Findings: fs}
	say("lint %s: %d findings in %s", r.v.Name, len(fs), report.FormatDuration(r.lint.Duration))
}

// report adds the phases of the installed variants: each variant that does not install, each
// port's comparison with the artifact, each install's cross-check, then each variant's rerun
// audit.
func (p *pipeline) report(rep *report.Report, res *Result, runs []*variantRun) error {
	// A variant that does not install has its phase install VARIANT when check reports it, or
	// when nothing else would (a prerequisite file that fails leaves the rerun nothing to run).
	installShown := func(r *variantRun) bool {
		return r.installErr != nil && (p.req.Steps.Parity || r.rerun == nil)
	}
	for _, r := range runs {
		if installShown(r) {
			rep.Phases = append(rep.Phases, installPhase(r))
		}
	}
	if p.req.Steps.Parity {
		if len(p.req.Ports) == 0 {
			rep.Phases = append(rep.Phases, report.PhaseResult{Phase: finding.PhaseParity, Name: "parity", File: p.req.Artifact.File, Status: report.StatusSkip,
				Notes: []string{"not run: the configuration has no ports, so the artifact is checked alone (lint, install, cross-check, rerun)"}})
		}
		for i, port := range p.req.Ports {
			phases, pr, err := p.parity(runs[0], runs[i+1], port)
			if err != nil {
				return err
			}
			rep.Phases = append(rep.Phases, phases...)
			res.Parity = append(res.Parity, pr)
		}
	}
	if p.req.Steps.CrossCheck {
		for _, r := range runs {
			switch {
			case r.file == nil:
			case r.installErr != nil:
				rep.Phases = append(rep.Phases, notInstalled(r, finding.PhaseLint, "lint installed "+r.v.Name))
			default:
				rep.Phases = append(rep.Phases, report.PhaseResult{Phase: finding.PhaseLint, Name: "lint installed " + r.v.Name, File: r.v.File,
					Findings: r.crossCheck,
					Notes:    []string{"what installing the file changed on pre-existing objects, against what its statements visibly do"}})
			}
		}
	}
	for _, r := range runs {
		switch {
		case r.audit != nil:
			rep.Phases = append(rep.Phases, *r.audit)
		case p.req.Steps.Audit && r.file != nil && r.installErr != nil:
			rep.Phases = append(rep.Phases, notInstalled(r, finding.PhaseAudit, "audit "+r.v.Name))
		}
	}
	if p.req.Steps.Rerun {
		for _, r := range runs {
			if r.rerun == nil && r.file != nil && r.installErr != nil { // no database to rerun in
				rep.Phases = append(rep.Phases, notInstalled(r, finding.PhaseRerun, "rerun "+r.v.Name))
				continue
			}
			phases := foldRerun(rerunPhases(r, p.req.Steps.RerunApart), r)
			if installShown(r) { // the install phase above reports the install's failure
				phases = foldInstall(phases, r)
			}
			rep.Phases = append(rep.Phases, phases...)
		}
	}
	return nil
}

// notInstalled is a phase that could not run because the variant (or a file it needs) does not
// install: skipped, pointing at the install phase that says why.
func notInstalled(r *variantRun, phase finding.Phase, name string) report.PhaseResult {
	return report.PhaseResult{Phase: phase, Name: name, File: r.v.File, Status: report.StatusSkip,
		Notes: []string{fmt.Sprintf("not run: %s does not install (see the phase install %s)", r.installFile, r.v.Name)}}
}

// audit runs the installed security audit on the variant's install (before the fixture), with
// lint's findings as the facts already reported; lint's modifies-existing-object findings on
// objects the install created (by SQL built at run time) are dropped first.
func (p *pipeline) audit(ctx context.Context, r *variantRun, db *scratch.Database, conn *pgx.Conn) error {
	if !p.req.Steps.Audit || r.file == nil {
		return nil
	}
	t0 := time.Now()
	fp := r.installed.Footprint
	r.lint.Findings = crosscheck.Owned(r.lint.Findings, fp)
	in := audit.Input{File: r.file, Footprint: fp, Lint: p.req.Lint, Static: r.lint.Findings, Statements: r.stmts}
	own, err := askOwn(ctx, p.req.Lint, db, conn, in)
	if err != nil {
		return err
	}
	took := time.Since(t0)
	// The install under the other privilege models runs beside this one and what follows it
	// (fixture, probes, rerun); its answers are asked for when the variant is done.
	r.finishAudit = func(ctx context.Context) error {
		t0 := time.Now()
		fs, confirmed, err := own.finish(ctx, r.models, in)
		if err != nil {
			return err
		}
		r.audit = &report.PhaseResult{Phase: finding.PhaseAudit, Name: "audit " + r.v.Name, File: r.v.File, Findings: fs, Duration: took + time.Since(t0),
			Notes: []string{"what anon and authenticated can do with what the file created or changed, asked of the installed catalog (splinter's security lints) " + modelsNote(p.req.Lint)}}
		confirmAudit(r, confirmed)
		if audit.Empty(fp) {
			r.audit.Status = report.StatusSkip
			r.audit.Notes = []string{"not run: installing the file created or changed no table, view, function, extension or policy, so there is nothing for anon and authenticated to reach"}
		}
		return nil
	}
	return nil
}

// installPhase is the phase "install VARIANT" of a variant that does not install: its
// install-failed finding, at the statement of the variant (or of a prerequisite file) that the
// server rejected.
func installPhase(r *variantRun) report.PhaseResult {
	f, _ := install.Finding(r.installErr)
	ph := report.PhaseResult{Phase: finding.PhaseInstall, Name: "install " + r.v.Name, File: r.installFile, Findings: []finding.Finding{f}}
	if r.installFile != r.v.File {
		ph.Notes = []string{fmt.Sprintf("the prerequisite %s does not install at dimension %d, so %s was not installed", r.installFile, r.v.Dim, r.v.File)}
	}
	return ph
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

// pipeline is the database part of a run: the server, and the snapshot of each template.
type pipeline struct {
	req  Request
	srv  *scratch.Server
	logf func(string, ...any) // the phases' progress lines
	say  func(string, ...any) // the gate's own

	base scratch.Base // what every database starts from (the request's prerequisites)

	mu     sync.Mutex
	before map[int]*snapshotOnce // by dimension
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

// newDatabase returns a database for v at its dimension, with the request's prerequisites. A
// prerequisite file that does not install is a *scriptFailure.
func (p *pipeline) newDatabase(ctx context.Context, v Variant) (*scratch.Database, error) {
	return p.srv.NewDatabaseFrom(ctx, v.Dim, p.base)
}

// withPrerequisites is the lint policy cfg with what the prerequisite files create counted as
// existing (lint.Config.WithPrerequisites). A prerequisite that does not parse adds what its
// statements before the error create; its install reports the error.
func withPrerequisites(cfg lint.Config, prereqs []Script) lint.Config {
	files := make([]*pgsql.File, 0, len(prereqs))
	for _, x := range prereqs {
		f, _ := pgsql.Parse(x.Name, x.Src)
		files = append(files, f)
	}
	return cfg.WithPrerequisites(files...)
}

// baseOf is what every database of req starts from: the Open Brain prerequisites unless
// NoOpenBrain, then the prerequisite files, in the template of each dimension.
func baseOf(req Request) scratch.Base { return baseFor(req.NoOpenBrain, req.Prerequisites) }

// baseFor is the scratch.Base of the Open Brain prerequisites (unless noOpenBrain) and then
// files, in order.
func baseFor(noOpenBrain bool, files []Script) scratch.Base {
	b := scratch.Base{NoOpenBrain: noOpenBrain, Describe: describeTemplate}
	if len(files) == 0 {
		return b
	}
	h := sha256.New()
	for _, x := range files {
		fmt.Fprintf(h, "%d:%s\x00%d:", len(x.Name), x.Name, len(x.Src))
		h.Write(x.Src)
	}
	b.Key = hex.EncodeToString(h.Sum(nil))
	b.Prepare = func(ctx context.Context, db *scratch.Database) error {
		for _, x := range files {
			if err := sqlscript.ExecFile(ctx, db, x.Name, x.Src); err != nil {
				return &scriptFailure{x.Name, err}
			}
		}
		return nil
	}
	return b
}

// variant takes one variant through its database: install (footprint), fixture, probes,
// cross-check, rerun audit.
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
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = db.Drop(dctx) // the server drops leftovers on Close
	}()
	// One superuser session of the database serves every snapshot, the audit and the rerun
	// audit's snapshots and digests: a session that has read the catalog reads it again at a
	// fraction of the cost of a new one. User SQL runs on sessions of its own.
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	f, sc, scErr := r.script()
	ropts := p.rerunOptions(r, sc)
	var up *rerun.Upgrade
	if p.req.Steps.Rerun {
		// The upgrade audit's database is independent of this one: it runs while this one is
		// installed, loaded and probed.
		uctx, ucancel := context.WithCancel(ctx)
		up = rerun.StartUpgrade(uctx, p.srv, ropts)
		defer func() { ucancel(); up.Wait() }()
	}
	r.installed = parity.Installed{Name: v.Name, File: v.File, Dim: v.Dim, Server: p.srv.Version(), Statements: r.stmts}
	if err := p.install(ctx, r, db, conn, f, sc, scErr); err != nil {
		if err := r.failed(ctx, err); err != nil {
			return err
		}
		return p.rerun(ctx, r, rerun.Prepared{DB: db, Install: r.installErr, Took: time.Since(t0), Reader: conn, Upgrade: up}, ropts)
	}
	// The file installed: install it again under the audit's other privilege models. That
	// runs beside the fixture, the probes and the rerun audit's first snapshot, never beside
	// another run of the file in this variant (the same statements on one cluster's roles at
	// once can fail each other: "tuple concurrently updated"), so the rerun waits for it.
	if p.req.Steps.Audit && r.finishAudit != nil {
		r.models = startModels(ctx, p.srv, p.req.Lint, v.Dim, p.base, nil, sc)
		defer closeModels(ctx, r.models)
	}
	if fx := p.req.Fixture; fx != nil {
		if err := sqlscript.ExecFile(ctx, db, fx.Name, fx.Src); err != nil {
			if err := r.failed(ctx, &scriptFailure{fx.Name, err}); err != nil {
				return err
			}
			r.fixtureErr = err
		}
	}
	// The probes only read the database (each in a transaction rolled back), so they run
	// while the rerun audit takes the snapshot and digests its reruns are compared with; the
	// audit waits for them before it applies the file again.
	probed := func() error { return nil }
	if r.fixtureErr == nil && p.req.Steps.Parity {
		probed = p.probesBeside(ctx, db, r)
	}
	reading := func() error {
		err := probed()
		waitModels(r.models)
		return err
	}
	if p.req.Steps.CrossCheck && r.file != nil {
		r.crossCheck = crosscheck.Check(r.file, p.req.Lint, r.installed.Footprint)
	}
	p.say("%s: %s at dimension %d installed and fixture loaded in %s", v.Name, v.File, v.Dim, report.FormatDuration(time.Since(t0)))
	// Without a fixture, the rerun audit fills the tables the install created (not in the
	// template's snapshot, which the install step read) with generated rows.
	tmpl, err := p.templateSnapshot(ctx, db, conn)
	if err != nil {
		return errors.Join(err, reading())
	}
	err = p.rerun(ctx, r, rerun.Prepared{DB: db, Fixture: r.fixtureErr, Fresh: r.fresh, Template: tmpl, Took: time.Since(t0), Reader: conn, Upgrade: up, Reading: reading}, ropts)
	if err := errors.Join(err, probed()); err != nil {
		return err
	}
	if r.finishAudit != nil {
		return r.finishAudit(ctx)
	}
	return nil
}

// probesBeside starts the probes on db in the background and returns the function that waits
// for them and returns their error (the same each time it is called).
func (p *pipeline) probesBeside(ctx context.Context, db *scratch.Database, r *variantRun) func() error {
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		defer fault.Recover(&err)
		t0 := time.Now()
		if err = p.probes(ctx, db, r); err == nil {
			p.say("%s: %d probes run in %s", r.v.Name, len(r.installed.Rows), report.FormatDuration(time.Since(t0)))
		}
	}()
	return func() error { <-done; return err }
}

// scriptFailure is the failure of the script File to install (Err), for [variantRun.failed].
type scriptFailure struct {
	File string
	Err  error
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
	r.installErr, r.installFile = sf.Err, sf.File
	return nil
}

// script returns the variant's file as its install runs it, at its dimension: the parse and its
// statements; the error is the file's syntax error, or what only psql can run.
func (r *variantRun) script() (*pgsql.File, *scratch.Script, error) {
	if r.parseEr != nil {
		return nil, nil, r.parseEr
	}
	f, err := sqlscript.Reuse(r.file, r.v.Src, r.v.Dim)
	if err != nil {
		return nil, nil, err
	}
	return f, sqlscript.Script(f), nil
}

// install runs the variant (f, its statements sc, or the error scErr of reading it: see
// [variantRun.script]) in db and takes its footprint, from the template's snapshot, on conn (a
// superuser session of db's, which the audit then reads the install on). A script that does not
// install is a *scriptFailure.
func (p *pipeline) install(ctx context.Context, r *variantRun, db *scratch.Database, conn *pgx.Conn, f *pgsql.File, sc *scratch.Script, scErr error) error {
	v := r.v
	before, err := p.templateSnapshot(ctx, db, conn)
	if err != nil {
		return err
	}
	if scErr != nil {
		return &scriptFailure{v.File, scErr}
	}
	r.installed.Source = f
	r.installed.Footprint, r.fresh, err = install.FootprintOn(ctx, db, conn, sc, before, introspect.Options{})
	if err != nil {
		return &scriptFailure{v.File, err}
	}
	return p.audit(ctx, r, db, conn)
}

// rerunOptions are the options of the variant's rerun and upgrade audits; sc is its script
// (nil when it does not parse).
func (p *pipeline) rerunOptions(r *variantRun, sc *scratch.Script) rerun.Options {
	v := r.v
	opts := rerun.Options{File: rerun.Script{Name: v.File, Src: v.Src}, Dim: v.Dim, Times: p.req.Times, Script: sc, Statements: r.stmts, Base: p.base, Logf: p.logf}
	if v.Previous != nil {
		opts.Previous = &rerun.Script{Name: v.Previous.Name, Src: v.Previous.Src}
	}
	if fx := p.req.Fixture; fx != nil {
		opts.Fixture = &rerun.Script{Name: fx.Name, Src: fx.Src}
	}
	return opts
}

// rerun continues the rerun audit on the variant's database (and finishes its upgrade audit).
func (p *pipeline) rerun(ctx context.Context, r *variantRun, prep rerun.Prepared, opts rerun.Options) error {
	if !p.req.Steps.Rerun {
		return nil
	}
	v := r.v
	res, err := rerun.AuditPrepared(ctx, p.srv, prep, opts)
	if err != nil {
		return fmt.Errorf("rerun audit of %s: %w", v.File, err)
	}
	r.rerun = res
	p.say("rerun %s: %d findings in %s", v.Name, len(res.Findings), report.FormatDuration(res.Timings.Total))
	return nil
}

// probes runs every probe on db, each in a transaction rolled back.
func (p *pipeline) probes(ctx context.Context, db *scratch.Database, r *variantRun) error {
	n := len(p.req.Probes)
	r.installed.Rows, r.installed.Errs = make([]*scratch.Rows, n), make([]error, n)
	if n == 0 {
		return nil
	}
	conn, err := db.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for i, pr := range p.req.Probes {
		r.installed.Rows[i], r.installed.Errs[i] = scratch.QueryRollback(ctx, conn, scratch.SubstituteDim(pr.SQL, r.v.Dim), scratch.QueryOptions{Role: pr.Role})
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// parity compares a port with the artifact: the phases "parity PORT", "probes PORT" and
// "allowlist PORT"; or, when one of the two does not install, "parity PORT" skipped.
func (p *pipeline) parity(art, port *variantRun, cfg Port) ([]report.PhaseResult, *parity.Report, error) {
	for _, r := range []*variantRun{art, port} {
		if r.installErr != nil {
			return []report.PhaseResult{{Phase: finding.PhaseParity, Name: "parity " + port.v.Name, File: port.v.File, Status: report.StatusSkip,
				Notes: []string{fmt.Sprintf("not compared: the %s does not install (see the phase install %s)", r.v.Name, r.v.Name)}}}, nil, nil
		}
	}
	var refs []*introspect.Footprint // what the files' installs did: the scope of a database read
	for _, r := range []*variantRun{art, port} {
		if r.v.File != "" {
			refs = append(refs, r.installed.Footprint)
		}
	}
	if len(refs) == 0 {
		return nil, nil, fault.Input(fmt.Errorf("the artifact and the %s are both read from databases and neither has a file: give the file of one (--artifact or --port) to say which objects to compare", port.v.Name))
	}
	rep, err := parity.Compare(p.compared(art, refs), p.compared(port, refs), p.req.Probes, cfg.Allowlist)
	if err != nil {
		return nil, nil, err
	}
	phases := rep.Phases(art.v.Name, port.v.Name)
	for i := range phases {
		phases[i].LeftLabel, phases[i].RightLabel = art.v.Label(), port.v.Label()
	}
	return phases, rep, nil
}

// rerunPhases are a variant's rerun and upgrade audits: one phase per audit (apart), or one for
// the variant, as check shows it.
func rerunPhases(r *variantRun, apart bool) []report.PhaseResult {
	if r.rerun == nil {
		return nil
	}
	if apart {
		return r.rerun.Phases()
	}
	res := r.rerun
	ph := report.PhaseResult{Phase: finding.PhaseRerun, Name: "rerun " + r.v.Name, File: r.v.File, Duration: res.Timings.Total,
		Counts: map[string]int{"runs": res.Runs, "tables": res.Tables, "rows": int(res.Rows)}}
	if res.Generated > 0 {
		ph.Counts["generated_rows"] = res.Generated
	}
	skipped := true // every audit checked nothing: the phase is skipped
	for _, p := range res.Phases() {
		ph.Findings = append(ph.Findings, p.Findings...)
		ph.Notes = append(ph.Notes, p.Notes...)
		skipped = skipped && p.Status == report.StatusSkip
	}
	if skipped {
		ph.Status = report.StatusSkip
	}
	return []report.PhaseResult{ph}
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
