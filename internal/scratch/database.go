package scratch

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"ledgercheck/internal/fault"
	"ledgercheck/internal/finding"
	"ledgercheck/internal/pgsql"
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

// URI returns a connection URI for the install role that psql accepts.
func (d *Database) URI() string { return uri(d.ConnConfig()) }

// Connect opens a connection as the install role.
func (d *Database) Connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, d.ConnConfig())
	if err != nil {
		return nil, fault.Env(fmt.Errorf("connecting to %s: %s", d.Name, serverMessage(err)))
	}
	return conn, nil
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
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("connecting to %s: %s", d.Name, serverMessage(err)))
	}
	return conn, nil
}

// InstallRole returns the name of the role user SQL runs as on the database's server, and
// AdminRole the superuser's (see [Server.InstallRole]).
func (d *Database) InstallRole() string { return d.srv.installRole }

// AdminRole: see [Database.InstallRole].
func (d *Database) AdminRole() string { return d.srv.adminRole }

// Drop drops the database.
func (d *Database) Drop(ctx context.Context) error { return d.srv.drop(ctx, d.Name) }

// ScriptError is a statement of a script that failed on the server.
type ScriptError struct {
	// Pos is where the failing statement starts or, when the server gave an error position,
	// that position, in the file as named by the caller.
	Pos finding.Position
	// Stmt is the 0-based index of the failing statement.
	Stmt int
	// Err is the server's error (a *pgconn.PgError unless the connection failed).
	Err error
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
	return dimVar.ReplaceAllString(sql, "${1}"+strconv.Itoa(dim))
}

// ExecFile runs the script src, named file in positions, statement by statement on one
// connection as the install role, the way `psql -v ON_ERROR_STOP=1 -f` would: session state such
// as SET search_path carries from one statement to the next, and explicit BEGIN/COMMIT in the
// file are honoured. `:dim` is replaced by the database's dimension first. A syntax error is a
// [*pgsql.SyntaxError]; a statement the server rejects, or whose session another session of user
// SQL terminated, is a [*ScriptError]. A server that dies or fails (a full disk, an exhausted
// resource, a lost connection) is an environment error ([fault.Env]) with what the server
// logged last.
//
// The whole run is bounded by the server's install time limit (Options.InstallTimeout); when it
// runs out, the error is a *ScriptError at the statement that was running.
func (d *Database) ExecFile(ctx context.Context, file string, src []byte) error {
	limit := d.srv.opts.InstallTimeout
	ctx, cancel := context.WithTimeoutCause(ctx, limit, errInstallTimeout)
	defer cancel()
	conn, err := d.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	err = ExecFile(ctx, conn, file, src, d.Dim)
	var se *ScriptError
	if errors.As(err, &se) {
		if errors.Is(context.Cause(ctx), errInstallTimeout) {
			se.Err = fmt.Errorf("install time limit of %s exceeded (set with --install-timeout); the statement here was still running", limit)
			return se
		}
		return d.srv.blame(ctx, se)
	}
	return err
}

var errInstallTimeout = errors.New("install time limit exceeded")

// ExecFile runs src on conn as [Database.ExecFile] does, substituting `:dim` with dim when dim > 0,
// but without telling the SQL's failures from the server's: every failing statement is a
// [*ScriptError].
func ExecFile(ctx context.Context, conn *pgx.Conn, file string, src []byte, dim int) error {
	text := string(src)
	if dim > 0 {
		text = SubstituteDim(text, dim)
	}
	f, err := pgsql.Parse(file, []byte(text))
	if err != nil {
		return err
	}
	if err := psqlOnly(f); err != nil {
		return err
	}
	for _, st := range f.Stmts {
		if _, err := conn.Exec(ctx, st.Text); err != nil {
			if ctx.Err() != nil && !errors.Is(context.Cause(ctx), errInstallTimeout) {
				return ctx.Err()
			}
			pos := st.Pos
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Position > 0 {
				pos = f.Pos(st.Start + pgsql.ByteOffset(st.Text, int(pe.Position)))
			}
			return &ScriptError{Pos: pos, Stmt: st.Index, Err: err}
		}
	}
	return nil
}

// psqlOnly rejects what only psql can run, as a [*pgsql.SyntaxError] at its position: a
// meta-command (\i, \set, ...), which pgsql.Parse blanked out so that lint could read the rest
// (installing the file without it would install something else than psql does), and
// COPY ... FROM STDIN, which would wait for data no SQL client sends.
func psqlOnly(f *pgsql.File) error {
	if len(f.MetaCommands) > 0 {
		m := f.MetaCommands[0]
		text := m.Text
		if r := []rune(text); len(r) > 40 {
			text = string(r[:40]) + "..."
		}
		return &pgsql.SyntaxError{Pos: m.Pos, Msg: text + " is psql syntax, not SQL; the file cannot be installed as it is (rule unsupported-statement)"}
	}
	for _, op := range f.Ops {
		if op.Context == pgsql.TopLevel && op.Verb == pgsql.VerbCopy && op.Copy != nil && op.Copy.From && !op.Copy.Program && op.Copy.File == "" {
			return &pgsql.SyntaxError{Pos: op.Pos, Msg: "COPY ... FROM STDIN needs psql to supply the data; the file cannot be installed as it is (rule unsupported-statement)"}
		}
	}
	return nil
}
