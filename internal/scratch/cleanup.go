package scratch

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/privileged"
)

// What a run creates on a --dsn server can be proven to be the run's, at any moment, even after
// a kill. The run takes an advisory lock of its own before it creates anything, and holds it on
// one session for its whole life; the server releases a session's locks when it ends, however it
// ends, so a run is gone when no session holds its lock. Its install role `ledgercheck_<id>` is
// created with the run's mark as its comment in one transaction; the run's databases are created
// owned by that role and named `ledgercheck_<id>_<n>`; the Supabase API roles the run created
// carry its mark as their comment. A run that ends drops exactly the roles that appeared on the
// server while it held the turn (owned.go); a run that was killed is swept by the next run or by
// `ledgercheck cleanup`, which find its roles by their ties to its install role (findDeadRun).

// runRoleName matches the name of a run's install role.
var runRoleName = regexp.MustCompile(`^ledgercheck_([0-9a-f]{12})$`)

// lockClass is the first key of ledgercheck's advisory locks ("LCK1"); the second is 0 for the
// server-wide turn and the run's key for its liveness.
const lockClass = 0x4C434B31

// runKey is the second advisory lock key of run id.
func runKey(id string) int32 {
	v, _ := strconv.ParseUint(id[:8], 16, 32)
	return int32(v&0x7fffffff | 1)
}

const markPrefix = "ledgercheck run "

// mark is the comment put on the roles a run creates: which run (its random id) and when it
// started. User SQL can read it, so it says nothing of the host that runs ledgercheck: no host
// name, no process id. A live run is told from a dead one by its advisory lock (lockRun).
func (s *Server) mark() string {
	return fmt.Sprintf("%s%s at %s", markPrefix, s.runID, s.started.UTC().Format(time.RFC3339))
}

// markedRun returns the run id and start time of a mark; ok is false for a comment that is not one.
func markedRun(comment string) (id string, at time.Time, ok bool) {
	rest, found := strings.CutPrefix(comment, markPrefix)
	if !found || len(rest) < 12 {
		return "", time.Time{}, false
	}
	id = rest[:12]
	_, when, found := strings.Cut(rest, " at ")
	if !found {
		return "", time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339, when)
	return id, at, err == nil
}

// lockRun opens the run's anchor session, waits for the server's turn and takes the run's own
// lock, then drops what runs that are gone left behind.
func (s *Server) lockRun(ctx context.Context) error {
	cfg := s.admin.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = "ledgercheck run " + s.runID
	anchor, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fault.Env(serverErrorf(err, "cannot connect to --dsn server"))
	}
	s.anchor = anchor
	var free bool
	if err := anchor.QueryRow(ctx, `SELECT pg_catalog.pg_try_advisory_lock($1, 0)`, int32(lockClass)).Scan(&free); err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: taking ledgercheck's lock"))
	}
	if !free {
		fmt.Fprintf(s.opts.Log, "scratch: waiting for another ledgercheck run on this server to finish\n")
		if _, err := anchor.Exec(ctx, `SELECT pg_catalog.pg_advisory_lock($1, 0)`, int32(lockClass)); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fault.Env(serverErrorf(err, "--dsn server: waiting for ledgercheck's lock"))
		}
	}
	if _, err := anchor.Exec(ctx, `SELECT pg_catalog.pg_advisory_lock($1, $2)`, int32(lockClass), runKey(s.runID)); err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: taking the run's lock"))
	}
	dropped, err := sweepDeadRuns(ctx, anchor, 0, s.runID)
	if len(dropped) > 0 {
		fmt.Fprintf(s.opts.Log, "scratch: dropped what killed runs left on the server: %s\n", strings.Join(dropped, ", "))
	}
	if err != nil {
		// What a killed run left and this one cannot drop does not stop this run: it is the
		// killed run's, and `ledgercheck cleanup` says what to do about it.
		fmt.Fprintf(s.opts.Log, "scratch: what killed runs left stays on the server: %s; run `ledgercheck cleanup --dsn` for what to do\n", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return nil
}

// checkGuard decides whether the install role may have CREATEROLE (see [Server]), and in the
// embedded PostgreSQL 15 cluster checks that the guard module is loaded; conn is a superuser
// session.
func (s *Server) checkGuard(ctx context.Context, conn *pgx.Conn) error {
	if s.major >= 16 {
		return nil
	}
	var version *string
	if err := conn.QueryRow(ctx, `SELECT pg_catalog.current_setting('ledgercheck_guard.version', true)`).Scan(&version); err != nil {
		return fault.Env(serverErrorf(err, "checking for ledgercheck's guard module"))
	}
	loaded := version != nil && *version != ""
	switch {
	case s.cl != nil && s.opts.noGuard:
	case s.cl != nil && !loaded:
		return fault.Env(errors.New("the embedded PostgreSQL 15 cluster started without ledgercheck's guard module: run `" + setupCommand(0) + "` as root"))
	case s.cl != nil && *version != guardDigest():
		return fault.Env(fmt.Errorf("the installed ledgercheck guard module (version %s) was built from another source than this ledgercheck's (%s): run `%s` as root to rebuild it", *version, guardDigest(), setupCommand(15)))
	case s.cl == nil && !loaded:
		s.noCreateRole = "on a PostgreSQL 15 --dsn server, user SQL may not create roles: PostgreSQL 15's CREATEROLE could grant any role, pg_execute_server_program included; use PostgreSQL 16 or later, the embedded cluster, or load ledgercheck's guard module on the server (scripts/guard-container.sh does it for a postgres or pgvector container)"
	}
	return nil
}

// Cleanup drops what runs of ledgercheck that are gone left on the server at dsn (a run killed
// with SIGKILL cannot drop its own): their databases, the roles their user SQL created that are
// still tied to their install roles, their install roles and the Supabase API roles they created
// (see findDeadRun). Runs that are still going are never touched, nor is anything that existed
// before a run: a database a dead run's SQL took is named in the error with what to run.
// olderThan (0 or more) leaves alone what runs that started less than that long ago left. It
// returns what it dropped.
func Cleanup(ctx context.Context, dsn string, olderThan time.Duration) ([]string, error) {
	if olderThan < 0 {
		return nil, fault.Input(fmt.Errorf("--older-than %s: want a duration of 0 or more", olderThan))
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fault.Input(fmt.Errorf("--dsn: %w", err))
	}
	privileged.Config(cfg)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "cannot connect to --dsn server"))
	}
	defer conn.Close(context.Background())
	var super bool
	if err := conn.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname OPERATOR(pg_catalog.=) current_user`).Scan(&super); err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: reading the role's attributes"))
	}
	if !super {
		return nil, fault.Env(errors.New("cleanup needs the --dsn role to be a superuser, as runs do"))
	}
	return sweepDeadRuns(ctx, conn, olderThan, "")
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
