package rerun

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/fill"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// DefaultTimes is how many times the rerun audit applies the migration when [Options.Times] is 0: the
// install and two reruns.
const DefaultTimes = 3

// SQLFile is a SQL file: its name as the user gave it (used in positions) and its content.
type SQLFile struct {
	Name string
	Src  []byte
}

// Options configure the rerun and upgrade audits.
type Options struct {
	// File is the migration under audit.
	File SQLFile
	// Dim is the vector dimension of the prerequisites (and of `:dim` in the scripts).
	Dim int
	// Times is how many times File is applied in the rerun audit, the install included
	// (0: [DefaultTimes]; 1: install and fixture only).
	Times int
	// Previous, when not nil, is the previous version of File: the upgrade audit installs it,
	// loads the fixture and applies File over it.
	Previous *SQLFile
	// NoPrevious, with a nil Previous, says why there is none, for the skipped upgrade's note;
	// "": none was given.
	NoPrevious string
	// Fixture, when not nil, is loaded after the install (and after Previous); without one the
	// tables are compared as the migration leaves them.
	Fixture *SQLFile
	// Snapshot selects what the catalog snapshots and table digests cover.
	Snapshot introspect.Options
	// Base is what every database of the audit starts from (the Open Brain prerequisites and
	// the configuration's prerequisite files); the zero Base is the Open Brain prerequisites.
	Base scratch.Base
	// Script, when not nil, is File already parsed (the gate parses each variant once); else
	// File is parsed for each run.
	Script *scratch.Script
	// Jobs are the pg_cron jobs File schedules (sqlscript.Jobs), whose commands the install ran
	// once after File: the upgrade runs them once after File too, so that it is compared with a
	// fresh install like it. The reruns do not: a job runs on its own schedule, not with each
	// application of the migration, and what it did once is what runs 2..N must keep. Their
	// failures are the install's findings (the phase bodies), not reported again.
	Jobs []sqlscript.Job
	// Statements, when not nil, maps File's objects to its statements (the gate's, built once
	// per variant); else File is parsed for it. Findings point at the statements.
	Statements *locate.Index
	// Logf, when not nil, receives progress lines (it may be called from several goroutines,
	// one call at a time).
	Logf func(format string, args ...any)
	// Observe, when not nil, returns the observer of one application of File after the install
	// (run is "run 2", ..., or "upgrade from PREVIOUS"), given conn: a superuser session of the
	// database the file runs in, which the audit leaves idle while it runs (the gate's lock
	// trace reads there). Only a parsed File (Script) is observed.
	Observe func(run string, conn *pgx.Conn) scratch.Observer
	// Exclusive, when not nil, is called before the upgrade audit runs anything and gives it the
	// server's roles to itself until the function it returns is called (the gate's, for files
	// that create roles: roles are the whole server's, and another install's would be in its
	// way).
	Exclusive func(context.Context) (func(context.Context) error, error)
}

// Prepared is a database in which the caller (the gate; the tests' Audit) installed the migration
// and loaded the fixture: the state after run 1. The gate prepares one database per variant and
// shares it between the install's footprint, the audit, the probes, the cross-check and this
// audit.
type Prepared struct {
	DB *scratch.Database
	// Install is the error of installing the migration and Fixture that of loading the fixture
	// (not tried when the install failed). A statement the server rejected or a syntax error is
	// a finding of the audit; any other error is returned by [Begin].
	Install, Fixture error
	// Fresh is the catalog after the install, before the fixture (nil when the install failed):
	// what generated rows are planned from.
	Fresh *introspect.Snapshot
	// Template, when not nil, is the catalog before the install (the template DB copies). With
	// no fixture, the tables in Fresh and not in Template (those the install created) are
	// filled with generated rows before the audit (see [fill]); nil reads it from the server's
	// description of the template, or from a database of its own.
	Template *introspect.Snapshot
	// Took is how long preparing took; it counts in the rerun phase's duration.
	Took time.Duration
	// Reader, when not nil, is a superuser session of DB that the caller keeps open (the gate's,
	// on which it took the install's snapshots): the audit takes its snapshots and digests of DB
	// on it, one at a time, instead of connecting for each. A session that has read the catalog
	// before reads it again at a fraction of the cost of a new one. Nil: the audit opens one.
	Reader *pgx.Conn
	// Content, when not nil, is a session of the reader role of DB that the caller keeps open
	// (the gate's, on which it read the environment's tables around the install): the audit
	// reads table contents on it. Nil: the audit opens one.
	Content *pgx.Conn
}

// Rerun is the rerun audit of a prepared database, in the steps its caller sequences: [Begin]
// (the install's and the fixture's failures), [Rerun.Fill] (generated rows, without a fixture),
// [Rerun.Baseline] (the snapshot and digests the reruns are compared with), [Rerun.Runs] (runs
// 2 to Times), then [Rerun.Phase]. A step that ends the audit with a finding (a run that
// fails, a capture too large to read) leaves nothing for the later ones to do. Work of the
// caller's that reads DB as the install left it (the gate's probes) may run beside Baseline,
// never beside Fill or Runs, which change it.
type Rerun struct {
	a     *auditor
	p     Prepared
	t0    time.Time
	out   rerunOutcome
	over  bool      // the outcome is final
	conn  *pgx.Conn // the catalog reader
	rs    readers   // the catalog and content readers, from Baseline on
	base  *state    // what the reruns are compared with
	close []func()  // what Close closes
}

// Begin starts the rerun audit of p: a migration or fixture that did not install is its
// finding, and ends the audit. The caller calls [Rerun.Close] when done.
func Begin(ctx context.Context, srv *scratch.Server, p Prepared, opts Options) (*Rerun, error) {
	if opts.Times == 0 {
		opts.Times = DefaultTimes
	}
	r := &Rerun{a: newAuditor(srv, opts), p: p, t0: time.Now()}
	o := r.a.opts
	if f, err := r.a.failure(ctx, o.File.Name, p.Install); err != nil {
		return nil, err
	} else if f != nil {
		r.out.findings = append(r.out.findings, newFinding(RuleRerunInstallFailed, finding.SevError, f.pos,
			"the migration fails on a fresh database, so it cannot be rerun: "+f.msg))
		r.out.failedAt, r.over = 1, true
		return r, nil
	}
	r.out.runs = 1
	if o.Fixture != nil {
		if f, err := r.a.failure(ctx, o.Fixture.Name, p.Fixture); err != nil {
			return nil, err
		} else if f != nil {
			r.out.findings = append(r.out.findings, newFinding(RuleRerunFixtureFailed, finding.SevError, f.pos,
				fmt.Sprintf("the fixture does not load over %s: %s", o.File.Name, f.msg)))
			r.over = true
			return r, nil
		}
	}
	conn, done, err := reader(ctx, p.DB, p.Reader)
	if err != nil {
		return nil, err
	}
	r.conn, r.close = conn, append(r.close, done)
	return r, nil
}

// Close closes the sessions the audit opened.
func (r *Rerun) Close() {
	for _, c := range slices.Backward(r.close) {
		c()
	}
	r.close = nil
}

// endWith ends the audit on a capture too large to read (its resource-limit finding), or
// returns err.
func (r *Rerun) endWith(err error) error {
	if f, ok := r.a.tooLarge(err); ok {
		r.out.findings, r.out.tooLarge, r.over = append(r.out.findings, f), true, true
		return nil
	}
	return err
}

// Fill stands in for a missing fixture: it fills the tables the install created with generated
// rows. With a fixture, or with no rerun to compare (Times 1), it does nothing.
func (r *Rerun) Fill(ctx context.Context) error {
	if r.over || r.a.opts.Fixture != nil || r.a.opts.Times == 1 { // run once: nothing to compare
		return nil
	}
	var err error
	r.out.filled, err = r.a.fill(ctx, "rerun", r.p.DB, r.conn, r.p.Template, r.p.Fresh)
	return r.endWith(err) // the catalog the fill reads
}

// Baseline takes the snapshot and the content digests the reruns are compared with (none with
// Times 1).
func (r *Rerun) Baseline(ctx context.Context) error {
	if r.over {
		return nil
	}
	if r.a.opts.Times == 1 { // run once: no run to compare with a baseline
		r.out.installed = true
		return nil
	}
	if r.p.Content != nil {
		r.rs = readers{catalog: r.conn, content: r.p.Content}
	} else {
		rs, done, err := contentReader(ctx, r.p.DB, readers{catalog: r.conn})
		if err != nil {
			return err
		}
		r.rs, r.close = rs, append(r.close, done)
	}
	var err error
	if r.base, err = r.a.capture(ctx, r.p.DB, r.rs, catalog|content); err != nil {
		return r.endWith(err)
	}
	r.out.installed = true
	r.out.tables, r.out.rows = userTables(r.base.digest)
	return nil
}

// Runs applies the migration again, runs 2 to Times, each compared with the baseline.
func (r *Rerun) Runs(ctx context.Context) error {
	if r.over || r.base == nil {
		return nil
	}
	a, o, db := r.a, r.a.opts, r.p.DB
	seen := map[string]bool{}
	for run := 2; run <= o.Times; run++ {
		a.logf("rerun: applying %s again (run %d of %d)", o.File.Name, run, o.Times)
		if f, err := a.apply(ctx, db, o.File, a.observed(fmt.Sprintf("run %d", run), r.conn)); err != nil {
			return err
		} else if f != nil {
			r.out.findings = append(r.out.findings, newFinding(RuleRerunFailed, finding.SevError, f.pos,
				fmt.Sprintf("run %d of %d failed: %s", run, o.Times, f.msg)))
			r.out.failedAt = run
			return nil
		}
		r.out.runs = run
		after, err := a.capture(ctx, db, r.rs, catalog|content)
		if err != nil {
			return r.endWith(err)
		}
		items := catalogFindings(introspect.Diff(r.base.snap, after.snap), rerunPhrasing{run})
		items = append(items, rerunRowFindings(run, r.base.digest, after.digest)...)
		items = append(items, rerunStateFindings(run, r.base.digest, after.digest)...)
		for _, it := range items {
			if !seen[it.key] {
				seen[it.key] = true
				a.place(&it)
				r.out.findings = append(r.out.findings, it.f)
			}
		}
	}
	return nil
}

// Phase is the audit's phase, "rerun FILE": its findings, its summary, its duration (preparing
// included) and the counts runs, tables and rows (and generated_rows).
func (r *Rerun) Phase() report.PhaseResult {
	a, rr := r.a, r.out
	ph := report.PhaseResult{Phase: finding.PhaseRerun, Name: "rerun " + a.opts.File.Name, File: a.opts.File.Name,
		Duration: r.p.Took + time.Since(r.t0), Findings: rr.findings, Notes: append([]string{a.rerunSummary(rr)}, fillNotes(rr.filled)...),
		Counts: withGenerated(map[string]int{"runs": rr.runs, "tables": rr.tables, "rows": int(rr.rows)}, rr.filled)}
	if a.opts.Times == 1 && rr.installed && rr.failedAt == 0 && len(rr.findings) == 0 || overNoRow(a.opts, rr) {
		ph.Status = report.StatusSkip // installed once, or over no row: nothing was compared
	}
	return ph
}

// Upgrade is an upgrade audit running in a database of its own, started by [StartUpgrade]
// and compared with the fresh install by [Upgrade.Phase].
type Upgrade struct {
	a    *auditor
	done chan struct{}
	out  upgradeOutcome
	err  error
	took time.Duration
}

// StartUpgrade starts the upgrade audit of opts ([Options.Previous], the fixture, then
// [Options.File]) in a database of its own on srv, in the background, and returns it; without
// a previous version there is nothing to run, and its phase says so. Cancelling ctx stops it.
// The caller asks for its phase ([Upgrade.Phase]) or waits for it ([Upgrade.Wait]).
func StartUpgrade(ctx context.Context, srv *scratch.Server, opts Options) *Upgrade {
	if opts.Times == 0 {
		opts.Times = DefaultTimes
	}
	u := &Upgrade{a: newAuditor(srv, opts), done: make(chan struct{})}
	if opts.Previous == nil {
		close(u.done)
		return u
	}
	go func() {
		t0 := time.Now()
		defer func() { u.took = time.Since(t0); close(u.done) }()
		defer fault.Recover(&u.err)
		u.out, u.err = u.a.upgrade(ctx)
	}()
	return u
}

// Wait waits until the upgrade audit has ended and dropped its database.
func (u *Upgrade) Wait() { <-u.done }

// Phase waits for the upgrade audit and returns its phase, "upgrade from PREVIOUS": the
// upgraded catalog compared with fresh, the catalog of a fresh install of the file (nil when it
// did not install, which the rerun audit reports), and the rows lost. Without a previous
// version, the phase "upgrade" is skipped and says why.
func (u *Upgrade) Phase(fresh *introspect.Snapshot) (report.PhaseResult, error) {
	u.Wait()
	a, o := u.a, u.a.opts
	if o.Previous == nil {
		why := fmt.Sprintf("no previous version of %s was given, so no upgrade from it is checked", o.File.Name)
		if o.NoPrevious != "" {
			why = o.NoPrevious
		}
		return report.PhaseResult{Phase: finding.PhaseRerun, Name: "upgrade", File: o.File.Name,
			Status: report.StatusSkip, Notes: []string{"upgrade not run: " + why}}, nil
	}
	if u.err != nil {
		return report.PhaseResult{}, u.err
	}
	up := u.out
	fs := up.findings
	// Compare catalogs only when both installs succeeded; a failing fresh install is the
	// rerun audit's rerun-install-failed finding.
	if up.snap != nil && fresh != nil {
		for _, it := range catalogFindings(introspect.Diff(fresh, up.snap), upgradePhrasing{}) {
			a.place(&it)
			fs = append(fs, it.f)
		}
	}
	return report.PhaseResult{Phase: finding.PhaseRerun,
		Name: "upgrade from " + o.Previous.Name, File: o.File.Name, Duration: u.took,
		Findings: fs, Notes: append([]string{a.upgradeSummary(up, fresh != nil, fs)}, fillNotes(up.filled)...),
		Counts: withGenerated(map[string]int{"tables": up.tables, "rows": int(up.rows)}, up.filled)}, nil
}

type auditor struct {
	srv  *scratch.Server
	opts Options
	logf func(string, ...any)
	ix   *locate.Index // the file's statements, where findings point

	prevOnce sync.Once
	prev     *locate.Index // the previous version's statements (see previous)
}

func newAuditor(srv *scratch.Server, opts Options) *auditor {
	var mu sync.Mutex
	logf := func(format string, args ...any) {
		if opts.Logf != nil {
			mu.Lock()
			defer mu.Unlock()
			opts.Logf(format, args...)
		}
	}
	return &auditor{srv: srv, opts: opts, logf: logf, ix: statements(opts)}
}

// failure is a script that the server (or the parser) rejected.
type failure struct {
	pos finding.Position
	msg string
}

// observed is the parsed file (Options.Script) with the observer Options.Observe gives the run
// called run on conn; the script itself without one.
func (a *auditor) observed(run string, conn *pgx.Conn) *scratch.Script {
	sc := a.opts.Script
	if sc == nil || a.opts.Observe == nil {
		return sc
	}
	c := *sc
	c.Observer = a.opts.Observe(run, conn)
	return &c
}

// exec runs a script in db (sc, when not nil, is s already parsed).
func (a *auditor) exec(ctx context.Context, db *scratch.Database, s SQLFile, sc *scratch.Script) error {
	if sc != nil {
		return db.Exec(ctx, sc)
	}
	return sqlscript.ExecFile(ctx, db, s.Name, s.Src)
}

// applyFile applies the migration in db (sc: its script, observed or not), then the commands of the jobs it schedules, as the
// install did ([Options.Jobs]): the upgrade's application of the file.
func (a *auditor) applyFile(ctx context.Context, db *scratch.Database, sc *scratch.Script) (*failure, error) {
	f, err := a.apply(ctx, db, a.opts.File, sc)
	if f != nil || err != nil || len(a.opts.Jobs) == 0 {
		return f, err
	}
	_, err = sqlscript.RunJobs(ctx, db, a.opts.Jobs)
	return nil, err
}

// apply runs a script in db. A statement the server rejects, or a syntax error, is a failure;
// anything else (the connection, a cancelled context) is an error.
func (a *auditor) apply(ctx context.Context, db *scratch.Database, s SQLFile, sc *scratch.Script) (*failure, error) {
	return a.failure(ctx, s.Name, a.exec(ctx, db, s, sc))
}

// failure turns the error of running the script called name into a failure, or returns it.
func (a *auditor) failure(ctx context.Context, name string, err error) (*failure, error) {
	if err == nil {
		return nil, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var se *scratch.ScriptError
	if errors.As(err, &se) {
		if pe := se.PgError(); pe != nil {
			return &failure{pos: se.Pos, msg: serverMessage(pe)}, nil
		}
		if si := se.SelfInflicted(); si != nil {
			return &failure{pos: se.Pos, msg: si.Msg}, nil
		}
		return nil, fmt.Errorf("rerun: applying %s: %w", name, err)
	}
	var sy *pgsql.SyntaxError
	if errors.As(err, &sy) {
		if sy.TooComplex {
			return &failure{pos: sy.Pos, msg: sy.Msg}, nil
		}
		return &failure{pos: sy.Pos, msg: "syntax error: " + sy.Msg}, nil
	}
	return nil, fmt.Errorf("rerun: applying %s: %w", name, err)
}

// serverMessage renders the server's error as one line: message, SQLSTATE, detail and hint.
func serverMessage(pe *pgconn.PgError) string {
	msg := pe.Message + " (SQLSTATE " + pe.Code + ")"
	if pe.Detail != "" {
		msg += "; " + strings.TrimSuffix(pe.Detail, ".")
	}
	if pe.Hint != "" {
		msg += "; hint: " + strings.TrimSuffix(pe.Hint, ".")
	}
	return msg
}

// tooLarge turns the error of a capture whose content digest, or whose catalog, is larger than
// the run reads (the read-size limit) into a resource-limit finding at the file's last
// statement (its first line when its statements are unknown): what the file left is the cause.
func (a *auditor) tooLarge(err error) (finding.Finding, bool) {
	var big *introspect.DigestTooLargeError
	var msg *pgproto3.ExceededMaxBodyLenErr
	switch {
	case errors.As(err, &big):
	case errors.As(err, &msg):
	default:
		return finding.Finding{}, false
	}
	pos := finding.Position{File: a.opts.File.Name, Line: 1, Col: 1}
	if sc := a.opts.Script; sc != nil && len(sc.Statements) > 0 {
		pos = sc.Statements[len(sc.Statements)-1].Pos
	}
	f := newFinding(install.RuleResourceLimit, finding.SevError, pos,
		"the data or catalog this file leaves is larger than ledgercheck reads (limits.read_size, --read-size): "+strings.Join(strings.Fields(err.Error()), " "))
	return f, true
}

func newFinding(rule string, sev finding.Severity, pos finding.Position, msg string) finding.Finding {
	return finding.Finding{Phase: finding.PhaseRerun, Rule: rule, Severity: sev, Pos: pos, Message: msg}
}

// newDatabase returns a scratch database and a function that drops it.
func (a *auditor) newDatabase(ctx context.Context) (*scratch.Database, func(), error) {
	return a.newDatabaseFrom(ctx, a.opts.Base)
}

// newDatabaseFrom is [auditor.newDatabase] from the template of base.
func (a *auditor) newDatabaseFrom(ctx context.Context, base scratch.Base) (*scratch.Database, func(), error) {
	db, err := a.srv.NewDatabaseFrom(ctx, a.opts.Dim, base)
	if err != nil {
		return nil, nil, err
	}
	return db, func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = db.Drop(dctx) // the server drops leftovers on Close
	}, nil
}

// state is a database's catalog and content.
type state struct {
	snap   *introspect.Snapshot
	digest *introspect.Digest
}

// reader returns the superuser session of db that captures read it on: conn when not nil, else
// a new one, which close closes.
func reader(ctx context.Context, db *scratch.Database, conn *pgx.Conn) (r *pgx.Conn, close func(), err error) {
	if conn != nil {
		return conn, func() {}, nil
	}
	if conn, err = db.ConnectAdmin(ctx); err != nil {
		return nil, nil, err
	}
	return conn, func() { conn.Close(context.WithoutCancel(ctx)) }, nil
}

// What a capture reads of a database.
const (
	catalog = 1 << iota // a snapshot
	content             // the table digests
)

// readers are the sessions a capture reads a database on: the catalog on a superuser session
// ([reader]), table contents on the reader role's ([scratch.Database.ConnectReader]), which has
// no privilege beyond reading.
type readers struct{ catalog, content *pgx.Conn }

// contentReader returns r with a session of the reader role of db for table contents, which
// close closes.
func contentReader(ctx context.Context, db *scratch.Database, r readers) (readers, func(), error) {
	conn, err := db.ConnectReader(ctx)
	if err != nil {
		return r, nil, err
	}
	r.content = conn
	return r, func() { conn.Close(context.WithoutCancel(ctx)) }, nil
}

// capture reads what (catalog, content or both) of db, on r.
func (a *auditor) capture(ctx context.Context, db *scratch.Database, r readers, what int) (*state, error) {
	var err error
	s := &state{}
	if what&catalog != 0 {
		if s.snap, err = introspect.Take(ctx, r.catalog, install.SnapshotOptions(a.opts.Snapshot, db)); err != nil {
			return nil, db.Blame(ctx, "taking a snapshot", fmt.Errorf("rerun: snapshot of %s: %w", db.Name, err))
		}
	}
	if what&content != 0 {
		opts := install.SnapshotOptions(a.opts.Snapshot, db)
		opts.RowValues = rowValuesUpTo
		opts.DigestBytes = db.ReadSize() // the bound on any one read of the server's, for the whole digest
		// Beyond the user tables: the environment's (storage, auth, cron, vault, pg_net), every
		// sequence's position and the large objects, which the reader role may read.
		opts.EnvironmentData, opts.LargeObjects = true, true
		if s.digest, err = introspect.TakeDigest(ctx, r.content, opts); err != nil {
			return nil, db.Blame(ctx, "taking a content digest", fmt.Errorf("rerun: content digest of %s: %w", db.Name, err))
		}
	}
	return s, nil
}

type rerunOutcome struct {
	findings  []finding.Finding
	runs      int
	tables    int
	rows      int64
	installed bool         // the install and fixture succeeded
	failedAt  int          // the run that failed, 0 if none
	tooLarge  bool         // a capture stopped at the read-size limit (a resource-limit finding)
	filled    *fill.Result // the generated rows, without a fixture
}

// item is a finding with the key that identifies it across runs.
type item struct {
	key  string
	attr string // the catalog attribute that changed, if the finding is about one
	f    finding.Finding
}

type upgradeOutcome struct {
	findings []finding.Finding
	snap     *introspect.Snapshot // after the upgrade; nil when it did not happen
	tables   int
	rows     int64
	filled   *fill.Result // the rows generated over the previous version, without a fixture
}

// upgrade installs the previous version, loads the fixture, digests, applies the migration over
// it and checks that no row was lost.
func (a *auditor) upgrade(ctx context.Context) (out upgradeOutcome, err error) {
	o := a.opts
	if o.Exclusive != nil {
		done, err := o.Exclusive(ctx)
		if err != nil {
			return out, err
		}
		defer func() { err = errors.Join(err, done(ctx)) }()
	}
	db, drop, err := a.newDatabase(ctx)
	if err != nil {
		return out, err
	}
	defer drop()
	var tmpl *introspect.Snapshot
	if o.Fixture == nil {
		// The tables to fill are those the previous version creates: the catalog before it.
		if tmpl, err = a.template(ctx, db, nil); err != nil {
			return out, err
		}
	}
	a.logf("upgrade: installing the previous version %s", o.Previous.Name)
	if f, err := a.apply(ctx, db, *o.Previous, nil); err != nil {
		return out, err
	} else if f != nil {
		out.findings = append(out.findings, newFinding(RuleUpgradePreviousFailed, finding.SevError, f.pos,
			"the previous version fails on a fresh database, so the upgrade cannot be checked: "+f.msg))
		return out, nil
	}
	if o.Fixture == nil {
		if out.filled, err = a.fill(ctx, "upgrade", db, nil, tmpl, nil); err != nil {
			if f, ok := a.tooLarge(err); ok {
				out.findings = append(out.findings, f)
				return out, nil
			}
			return out, err
		}
	} else {
		a.logf("upgrade: loading the fixture %s over %s", o.Fixture.Name, o.Previous.Name)
		if f, err := a.apply(ctx, db, *o.Fixture, nil); err != nil {
			return out, err
		} else if f != nil {
			out.findings = append(out.findings, newFinding(RuleUpgradeFixtureFailed, finding.SevError, f.pos,
				fmt.Sprintf("the fixture does not load over the previous version %s: %s", o.Previous.Name, f.msg)))
			return out, nil
		}
	}
	conn, done, err := reader(ctx, db, nil)
	if err != nil {
		return out, err
	}
	defer done()
	rs, rdone, err := contentReader(ctx, db, readers{catalog: conn})
	if err != nil {
		return out, err
	}
	defer rdone()
	// The rows before; the catalog is compared after the upgrade only, with a fresh install's.
	before, err := a.capture(ctx, db, rs, content)
	if f, ok := a.tooLarge(err); ok {
		out.findings = append(out.findings, f)
		return out, nil
	}
	if err != nil {
		return out, err
	}
	out.tables, out.rows = userTables(before.digest)
	a.logf("upgrade: applying %s over %s", o.File.Name, o.Previous.Name)
	if f, err := a.applyFile(ctx, db, a.observed("upgrade from "+o.Previous.Name, conn)); err != nil {
		return out, err
	} else if f != nil {
		out.findings = append(out.findings, newFinding(RuleUpgradeFailed, finding.SevError, f.pos,
			fmt.Sprintf("the upgrade from %s failed: %s", o.Previous.Name, f.msg)))
		return out, nil
	}
	after, err := a.capture(ctx, db, rs, catalog|content)
	if f, ok := a.tooLarge(err); ok {
		out.findings = append(out.findings, f)
		return out, nil
	}
	if err != nil {
		return out, err
	}
	out.snap = after.snap
	for _, it := range append(upgradeRowFindings(before.digest, after.digest), upgradeStateFindings(before.digest, after.digest)...) {
		a.place(&it)
		out.findings = append(out.findings, it.f)
	}
	return out, nil
}

func (a *auditor) rerunSummary(rr rerunOutcome) string {
	o := a.opts
	over := overWhat(o, rr.filled)
	switch {
	case rr.failedAt == 1:
		return fmt.Sprintf("rerun failed: %s does not install on a fresh database", o.File.Name)
	case rr.tooLarge:
		return fmt.Sprintf("rerun failed: what %s leaves is larger than ledgercheck reads (limits.read_size)", o.File.Name)
	case !rr.installed:
		return fmt.Sprintf("rerun failed: the fixture %s does not load over %s", o.Fixture.Name, o.File.Name)
	case rr.failedAt > 0:
		return fmt.Sprintf("rerun failed: %s failed on run %d of %d", o.File.Name, rr.failedAt, o.Times)
	case len(rr.findings) > 0:
		return fmt.Sprintf("rerun failed: %s ran %d times %s, but changed the catalog or the data (%s)",
			o.File.Name, o.Times, over, nouns.Count(len(rr.findings), "finding"))
	case o.Times == 1:
		return fmt.Sprintf("rerun skipped: %s installed once; rerun.times 1 (or --times 1) applies it no more, so no rows are generated or compared", o.File.Name)
	case overNoRow(o, rr):
		return fmt.Sprintf("rerun skipped: %s ran %d times and left the catalog unchanged, but over no row, so no lost or changed row could show: the generated rows were refused (%s); a fixture with rows of its tables (fixture:) checks them",
			o.File.Name, o.Times, refusedWhy(rr.filled))
	}
	return fmt.Sprintf("rerun passed: %s ran %d times %s; the catalog and all %s (%s) were unchanged after every run",
		o.File.Name, o.Times, over, nouns.Count(rr.tables, "table"), nouns.Count(int(rr.rows), "row"))
}

func (a *auditor) upgradeSummary(up upgradeOutcome, freshOK bool, fs []finding.Finding) string {
	o := a.opts
	if len(fs) > 0 {
		return fmt.Sprintf("upgrade failed: %s over %s (%s)", o.File.Name, o.Previous.Name, nouns.Count(len(fs), "finding"))
	}
	if !freshOK {
		// The rerun audit reports why the fresh install failed.
		return fmt.Sprintf("upgrade not compared: %s does not install on a fresh database", o.File.Name)
	}
	if o.Fixture == nil && up.filled != nil && up.filled.Rows() > 0 {
		return fmt.Sprintf("upgrade passed: %s over %s and %s matches a fresh install, and no row of %s (%s) was lost",
			o.File.Name, o.Previous.Name, up.filled.Summary(), nouns.Count(up.tables, "table"), nouns.Count(int(up.rows), "row"))
	}
	return fmt.Sprintf("upgrade passed: %s over %s matches a fresh install, and no row of %s (%s) was lost",
		o.File.Name, o.Previous.Name, nouns.Count(up.tables, "table"), nouns.Count(int(up.rows), "row"))
}

// overWhat says what the audit ran over: the fixture, the generated rows, or nothing.
func overWhat(o Options, filled *fill.Result) string {
	switch {
	case o.Fixture != nil:
		return "over the fixture " + o.Fixture.Name
	case filled != nil && filled.Rows() > 0:
		return "over " + filled.Summary()
	}
	return "without a fixture"
}

// withGenerated adds to a phase's counts the rows generated without a fixture, if any were.
func withGenerated(counts map[string]int, filled *fill.Result) map[string]int {
	if n := generated(filled); n > 0 {
		counts["generated_rows"] = n
	}
	return counts
}

// generated is how many rows filled holds (none: nil).
func generated(filled *fill.Result) int {
	if filled == nil {
		return 0
	}
	return filled.Rows()
}

// fillNotes are the notes of the tables generated rows left empty.
func fillNotes(filled *fill.Result) []string {
	if filled == nil {
		return nil
	}
	return filled.Notes()
}
