package scratch

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// Database is one scratch database created by a [Server].
type Database struct {
	srv *Server
	// Name is the database name (prefix [NamePrefix]).
	Name string
	// Dim is the vector dimension the prerequisites were installed at (0: environment only).
	Dim int
}

// ConnConfig returns the configuration for connecting as the install role (the role user SQL
// runs as), with extensions on the search_path and the statement and lock timeouts set.
func (d *Database) ConnConfig() *pgx.ConnConfig { return d.srv.userConfig(d.Name) }

// URI returns a connection URI for the install role that psql accepts: it logs in as the install
// role itself, as a person does on Supabase.
func (d *Database) URI() string { return uri(d.srv.installLogin(d.Name)) }

// Connect opens a connection as the install role, for user code outside a script (a probe,
// generated rows, the bodies check): it waits while a script runs, and no script runs until it
// is closed (login.go).
func (d *Database) Connect(ctx context.Context) (*pgx.Conn, error) {
	return d.srv.uc.openSession(ctx, func() (*pgx.Conn, error) { return d.connect(ctx, d.ConnConfig(), "") })
}

// connect opens a connection to d with cfg (as says as whom, "" for the install role). A
// connection refused because the server died says so, with what it logged last: the failure
// is the server's, and the log tells why.
func (d *Database) connect(ctx context.Context, cfg *pgx.ConnConfig, as string) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		return conn, nil
	}
	what := "connecting to " + d.Name + as
	if berr := d.Blame(ctx, what, err); berr != err {
		return nil, berr
	}
	return nil, fault.Env(serverErrorf(err, "%s", what))
}

// ConnectAdmin opens a connection as the superuser, for ledgercheck's own reads of the database
// (catalog snapshots, table digests), never for user SQL. User SQL cannot end or alter such a
// session: pg_terminate_backend and pg_cancel_backend need superuser rights against one.
func (d *Database) ConnectAdmin(ctx context.Context) (*pgx.Conn, error) {
	cfg := d.srv.admin.Copy()
	cfg.Database = d.Name
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = "ledgercheck (reader)"
	return d.connect(ctx, cfg, "")
}

// ConnectReader opens a connection as the reader role, for the digests' reads of table
// contents: a role of the run's own that holds only what reading needs (pg_read_all_data and
// BYPASSRLS; no superuser, no pg_execute_server_program or pg_read_server_files, not
// administered by the install role), so that whatever reading a table could still run (none of
// ledgercheck's queries resolves a name or casts a value of the migration's: see
// internal/privileged) would run without privilege. It is a privileged session all the same
// (search_path = pg_catalog from its start).
func (d *Database) ConnectReader(ctx context.Context) (*pgx.Conn, error) {
	return d.connect(ctx, d.srv.readerConfig(d.Name), " as the reader")
}

// InstallRole returns the name of the role user SQL runs as on the database's server, and
// AdminRole the superuser's (see [Server.InstallRole]).
func (d *Database) InstallRole() string { return d.srv.installRole }

// AdminRole: see [Database.InstallRole].
func (d *Database) AdminRole() string { return d.srv.adminRole }

// Drop drops the database, or leaves it to [Server.Close] after
// [Server.LeaveDatabasesToClose].
func (d *Database) Drop(ctx context.Context) error {
	d.srv.mu.Lock()
	leave := d.srv.leave
	d.srv.mu.Unlock()
	if leave {
		return nil
	}
	return d.srv.drop(ctx, d.Name)
}

// ScriptError is a statement of a script that failed on the server.
type ScriptError struct {
	// Pos is where the failing statement starts or, when the server gave an error position,
	// that position, in the file as named by the caller.
	Pos finding.Position
	// Stmt is the 0-based index of the failing statement.
	Stmt int
	// Err is the server's error (a *pgconn.PgError unless the connection failed).
	Err error
	// Limit, when not "", names the run's resource limit (LimitScratchSize, ...) that stopped
	// the statement: Err then says what happened (limits.go).
	Limit string
}

func (e *ScriptError) Error() string {
	return fmt.Sprintf("%s: %s", e.Pos, serverMessage(e.Err))
}

func (e *ScriptError) Unwrap() error { return e.Err }

// Message is the server's message with its SQLSTATE, detail and hint, without the position.
func (e *ScriptError) Message() string { return serverMessage(e.Err) }

// PgError returns the server's error, or nil if the failure was not the server's.
func (e *ScriptError) PgError() *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(e.Err, &pe) {
		return pe
	}
	return nil
}

var dimVar = regexp.MustCompile(`(^|[^:]):dim\b`)

// SubstituteDim replaces the psql-style variable `:dim` in sql with dim. A dimension of four
// digits keeps every position in the file unchanged.
func SubstituteDim(sql string, dim int) string {
	if !strings.Contains(sql, ":dim") { // most files: the regexp alone costs milliseconds
		return sql
	}
	return dimVar.ReplaceAllString(sql, "${1}"+strconv.Itoa(dim))
}

// Statement is one statement of a [Script].
type Statement struct {
	// Index is the 0-based index of the statement in its file.
	Index int
	// Text is the statement as the server receives it.
	Text string
	// Start is the byte offset of its first token in the file, and Pos that token's position.
	Start int
	Pos   finding.Position
}

// Script is a SQL file split into statements. scratch parses no SQL (it links no parser);
// ledgercheck's parser is internal/pgsql, and internal/sqlscript turns a parsed file into a
// Script.
type Script struct {
	// Name is the file as the user named it, used in positions.
	Name       string
	Statements []Statement
	// Position maps a byte offset of the file to its position; it places the server's error
	// position, which is inside a statement. Nil places errors at their statement.
	Position func(offset int) finding.Position
	// Observer, when not nil, watches each statement while its transaction is still open
	// (observe.go); nil runs the script as psql would, one simple-protocol Query per statement.
	Observer Observer
}

// Exec runs the script statement by statement on one connection as the install role, the way
// `psql -v ON_ERROR_STOP=1 -f` would: session state such as SET search_path carries from one
// statement to the next, and explicit BEGIN/COMMIT in the file are honoured. A statement the
// server rejects, or whose session another session of user SQL terminated, is a [*ScriptError].
// A server that dies or fails (a full disk, an exhausted resource, a lost connection) is an
// environment error ([fault.Env]) with what the server logged last.
//
// A statement that tries to change what the run's later sessions need of its role and databases
// (its password, a connection limit, a setting: see warden.go) is stopped and returned as a
// [*ScriptError] at that statement, whose Err is a [*SelfInflicted]. So is the install time limit
// (Options.InstallTimeout), which bounds the whole run: when it runs out, the error is at the
// statement that was running.
func (d *Database) Exec(ctx context.Context, sc *Script) error {
	// It waits for the other scripts and for the sessions of user code (login.go), however long
	// they take: a caller must not hold one of those open while it runs a script.
	done, err := d.srv.uc.runScript(ctx)
	if err != nil {
		return err
	}
	defer done()
	limit := d.srv.opts.InstallTimeout
	ctx, cancel := context.WithTimeoutCause(ctx, limit, errInstallTimeout)
	defer cancel()
	if d.srv.cl != nil {
		var stop func()
		ctx, stop = d.srv.watchStatements(ctx)
		defer stop()
	}
	var sent *sentinel
	var serr error
	opened := make(chan struct{})
	go func() {
		defer close(opened)
		defer fault.Recover(&serr)
		sent, serr = d.srv.sentinelFor(ctx, d.Name)
	}()
	conn, err := d.connect(ctx, d.ConnConfig(), "")
	<-opened
	var e *execution
	if sent != nil {
		defer func() {
			if e != nil && e.sentinel == nil { // ended by the script: its finding
				sent.close()
				return
			}
			d.srv.keepSentinel(d.Name, sent)
		}()
	}
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if serr != nil {
		return d.Blame(ctx, "connecting the sentinel session", serr)
	}
	e = d.srv.watch(sc, d.Name, conn.PgConn().PID())
	e.sentinel = sent
	err = d.exec(ctx, conn, sc, e)
	if se := d.srv.unwatch(e); se != nil && (ctx.Err() == nil || errors.Is(context.Cause(ctx), errInstallTimeout)) {
		// What the warden stopped comes first: the statement failed because it was stopped.
		return se
	}
	return err
}

func (d *Database) exec(ctx context.Context, conn *pgx.Conn, sc *Script, e *execution) error {
	var mark int64
	if d.srv.cl != nil {
		mark = d.srv.cl.log.mark()
	}
	i := 0
	err := execStatements(ctx, conn, sc, func() { d.srv.starting(e, i); i++ }, func(j int, tag string) error {
		d.srv.noteRunRoles(ctx) // before a later statement can cut a role it made loose (runroles.go)
		d.srv.ran(e)
		if e.sentinel != nil && ctx.Err() == nil && !e.sentinel.standing(ctx) {
			if berr := d.Blame(ctx, "asking the sentinel session", errSentinelGone); berr != errSentinelGone {
				return berr
			}
			st := sc.Statements[j]
			e.sentinel = nil
			return &ScriptError{Pos: st.Pos, Stmt: st.Index, Err: &SelfInflicted{Msg: SessionEnding}}
		}
		return nil
	})
	var se *ScriptError
	if errors.As(err, &se) {
		if errors.Is(context.Cause(ctx), errInstallTimeout) {
			se.Err = &SelfInflicted{Timeout: true, Msg: fmt.Sprintf("it ran past the install time limit of %s (set with --install-timeout); the statement here was still running", d.srv.opts.InstallTimeout)}
			return se
		}
		if se.SelfInflicted() != nil {
			return se // what the statement did to its own session's reading
		}
		return d.srv.blame(ctx, se, mark)
	}
	return err
}

var errInstallTimeout = errors.New("install time limit exceeded")

var errSentinelGone = errors.New("the sentinel session is gone")

// ExecScript runs sc on conn as [Database.Exec] does, but without telling the SQL's failures from
// the server's: every failing statement is a [*ScriptError].
func ExecScript(ctx context.Context, conn *pgx.Conn, sc *Script) error {
	return execStatements(ctx, conn, sc, nil, nil)
}

// execStatements runs sc's statements on conn in order, each in a message of its own, and stops
// at a statement after which the server would read the next otherwise than the parser did
// (reading.go). Hooks, when not nil: before is called
// before each, after after each with its index in sc.Statements and its command tag ("" when
// it failed); an error after returns ends the run.
func execStatements(ctx context.Context, conn *pgx.Conn, sc *Script, before func(), after func(i int, tag string) error) error {
	pc := conn.PgConn()
	if m := misread(pc); m != "" && len(sc.Statements) > 0 {
		st := sc.Statements[0]
		return &ScriptError{Pos: st.Pos, Stmt: st.Index, Err: startedMisread(m)}
	}
	if obs := sc.Observer; obs != nil {
		obs.Connected(ctx, pc.PID())
		defer func() { obs.Done(ctx, pc.TxStatus() == 'I') }()
	}
	for i, st := range sc.Statements {
		if before != nil {
			before()
		}
		tag, err := execOne(ctx, conn, i, st, sc.Observer)
		if err != nil {
			if ctx.Err() != nil && !stoppedByLimit(ctx) {
				return ctx.Err()
			}
			pos := st.Pos
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Position > 0 && sc.Position != nil {
				pos = sc.Position(st.Start + finding.ByteOffset(st.Text, int(pe.Position)))
			}
			if after != nil {
				after(i, "") //nolint:errcheck // the statement's error is the one to return
			}
			return &ScriptError{Pos: pos, Stmt: st.Index, Err: severalStatements(err)}
		}
		if after != nil {
			if err := after(i, tag.String()); err != nil {
				return err
			}
		}
		if m := misread(pc); m != "" {
			return &ScriptError{Pos: st.Pos, Stmt: st.Index, Err: readingChanged(m)}
		}
	}
	return nil
}

// execOne runs statement i of a script on conn in a message of its own (reading.go's
// execText), or, with an observer, the way observe.go says (also one statement per message).
func execOne(ctx context.Context, conn *pgx.Conn, i int, st Statement, obs Observer) (pgconn.CommandTag, error) {
	if obs != nil {
		return execObserved(ctx, conn, i, st, obs)
	}
	return execText(ctx, conn.PgConn(), st.Text)
}

// execPrerequisites installs the Open Brain prerequisites at the database's dimension as the
// install role, one embedded file at a time (each file one simple-protocol round trip: they are
// ledgercheck's own SQL, which needs no statement positions).
func (d *Database) execPrerequisites(ctx context.Context) error {
	conn, err := d.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for _, p := range Prerequisites() {
		if _, err := conn.Exec(ctx, SubstituteDim(p.SQL, d.Dim)); err != nil {
			return fault.Env(serverErrorf(err, "applying internal/scratch/%s", p.Name))
		}
	}
	return nil
}
