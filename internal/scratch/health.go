package scratch

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// Who is to blame when a statement of user SQL fails decides the exit code: the SQL (a finding,
// exit 1) or the environment (exit 3). A server that dies, a full disk, a lost connection or
// an exhausted resource is the environment's; a statement the server rejects, a session that
// another session of user SQL terminated (pg_terminate_backend), an error the SQL raised itself
// with a server condition's SQLSTATE (raised), the install time limit and what the SQL did to the
// run's role and databases (warden.go) are the SQL's.

// environmental reports whether a server error is about the server rather than the statement:
// insufficient resources (53: disk full, out of memory, too many connections), system and I/O
// errors (58), configuration file errors (F0), corrupted data or indexes (XX001, XX002), and a
// server that crashed or is shutting down or starting up (57P02, 57P03). XX000 is not among
// them: it is the code of every error raised without one, many of them about the statement.
func environmental(pe *pgconn.PgError) bool {
	if strings.HasPrefix(pe.Code, "53") || strings.HasPrefix(pe.Code, "58") || strings.HasPrefix(pe.Code, "F0") {
		return true
	}
	switch pe.Code {
	case "XX001", "XX002", "57P02", "57P03":
		return true
	}
	return false
}

// raised reports whether the SQL raised the error itself (PL/pgSQL's RAISE, whatever SQLSTATE it
// names, reports from exec_stmt_raise), rather than the server reporting a condition of its own.
// A RAISE that re-raises a caught error keeps that error's routine, so a real condition caught
// and re-raised is still the server's.
func raised(pe *pgconn.PgError) bool { return pe.Routine == "exec_stmt_raise" }

// terminated reports whether a server error is the FATAL message of a session ended by another
// session or by a shutdown (57P01 admin_shutdown).
func terminated(pe *pgconn.PgError) bool { return pe.Code == "57P01" }

// alive reports whether the server is still up: it accepts a connection (and, in the embedded
// cluster, its sandbox is running).
func (s *Server) alive(ctx context.Context) bool {
	if s.cl != nil && s.cl.dead() {
		return false
	}
	// A connection tells for sure: the backends of a killed server may go before its
	// postmaster has been reaped.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, s.admin)
	if err != nil {
		return false
	}
	conn.Close(cctx)
	return true
}

// serverLog returns the last lines the embedded server logged, for messages about a failed
// server ("" in server mode, whose log ledgercheck cannot read).
func (s *Server) serverLog() string {
	if s.cl == nil {
		return ""
	}
	return "; " + s.cl.lastLog()
}

// blame turns the failure of a statement at where (file:line:col) into either a *ScriptError (the
// SQL's fault; se is returned, its message completed) or an environment error that says what
// happened to the server, with its last log lines.
//
// mark is the embedded cluster's log position when the script started (0 in server mode): a
// server process that crashed since then (the postmaster ends every session and restarts them)
// is the environment's failure even when the server is up again by the time it is asked.
func (s *Server) blame(ctx context.Context, se *ScriptError, mark int64) error {
	if le := s.limitHit(ctx, se); le != nil {
		return asLimit(se, le) // a resource limit of the run (limits.go): a finding
	}
	var pe *pgconn.PgError
	isPg := errors.As(se.Err, &pe)
	switch {
	case isPg && raised(pe) && s.alive(ctx):
		// SQLSTATE 53100 or XX001 from a RAISE says nothing of the server, which is up.
		return se
	case isPg && environmental(pe):
		return fault.Env(fault.Wrapf(pe, "the scratch server failed while running %s: %s%s", se.Pos, serverMessage(pe), s.serverLog()))
	case isPg && pe.Code == "42501" && s.noCreateRole != "" && strings.Contains(pe.Message, "create role"):
		pe.Hint = s.noCreateRole
		return se
	case isPg && !terminated(pe):
		return se
	}
	if !s.alive(ctx) {
		return fault.Env(fault.Wrapf(se.Err, "the scratch server died while running %s: %s%s", se.Pos, oneLineErr(se.Err), s.serverLog()))
	}
	if s.cl != nil && s.cl.log.matchesSince(mark, crashRE) {
		return fault.Env(fault.Wrapf(se.Err, "a process of the scratch server crashed while running %s, and the server restarted: %s%s", se.Pos, oneLineErr(se.Err), s.serverLog()))
	}
	// The server is up, but this session was ended: another session terminated it. In a
	// scratch database only user SQL can do that, or the warden stopping the statement (then
	// Database.Exec reports what the warden stopped instead).
	se.Err = &pgconn.PgError{Severity: "FATAL", Code: "57P01",
		Message: "this session was terminated by another session while it ran the statement here (user SQL calling pg_terminate_backend?)",
		Detail:  oneLineErr(se.Err)}
	return se
}

// crashRE finds, in the server's log, a server process's PANIC, or the postmaster's line when a
// process crashed and it ends the others to restart (lc_messages is C). Either may be the only
// sign: the session that PANICs sees its connection end before the postmaster has noticed, and
// a server that restarted is up again. Only a line's start counts (log_line_prefix is
// '%m [%p] '): the server indents every further line of a message with a tab, so no message
// that user SQL raises can make one.
var crashRE = regexp.MustCompile(`(?m)^\S+ \S+ \S+ \[\d+\] (PANIC:  |LOG:  terminating any other active server processes)`)

func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// SessionEnded reports whether err, from a statement on conn (a session of d's install role),
// means another session ended conn (pg_terminate_backend: user SQL in d, as d's login role, may
// end d's sessions of the install role, the gate's own among them: login.go), the server being
// up. A session ended while it ran the statement says so (57P01); one ended between two
// statements was closed by the server, and the next statement fails to write or read, the
// server's message unread: conn is then closed. A server that died since is an environment error (as [Database.Blame] says it,
// about what); any other error is not an ended session.
func (d *Database) SessionEnded(ctx context.Context, what string, conn *pgx.Conn, err error) (bool, error) {
	if err == nil || ctx.Err() != nil {
		return false, err
	}
	var pe *pgconn.PgError
	isPg := errors.As(err, &pe)
	if ended := isPg && terminated(pe) || !isPg && conn.IsClosed(); !ended {
		return false, err // the statement's own error, on a session still open
	}
	if berr := d.Blame(ctx, what, err); berr != err {
		return false, berr // the server went away
	}
	return true, nil
}

// Blame returns err, an error of ledgercheck's own reads of db (a snapshot, a table digest,
// taken while what), as an environment error that says the server died, with what it logged
// last, when it did; otherwise err unchanged.
func (d *Database) Blame(ctx context.Context, what string, err error) error {
	if err == nil || ctx.Err() != nil || d.srv.alive(ctx) {
		return err
	}
	return fault.Env(fault.Wrapf(err, "the scratch server died while %s: %s%s", what, oneLineErr(err), d.srv.serverLog()))
}
