package scratch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgercheck/internal/fault"
	"ledgercheck/internal/privileged"
)

// What a run creates on a --dsn server can be proven to be the run's, at any moment, even after
// a kill. The run takes an advisory lock of its own before it creates anything, and holds it on
// one session for its whole life; the server releases a session's locks when it ends, however it
// ends, so a run is gone when no session holds its lock. Its install role `ledgercheck_<id>` is
// created with the run's mark as its comment in one transaction; the run's databases are created
// owned by that role (`ledgercheck_<id>_<n>`, and still owned by it if user SQL renamed one);
// the roles user SQL created are those the install role holds ADMIN OPTION on (PostgreSQL 16
// grants that to a role's creator; ledgercheck's guard does on 15); the Supabase API roles the
// run created carry its mark as their comment.

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

// mark is the comment put on the roles a run creates: which run, where, when.
func (s *Server) mark() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s%s on %s:%d at %s", markPrefix, s.runID, host, os.Getpid(), time.Now().UTC().Format(time.RFC3339))
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
		return fault.Env(fmt.Errorf("cannot connect to --dsn server: %s", serverMessage(err)))
	}
	s.anchor = anchor
	var free bool
	if err := anchor.QueryRow(ctx, `SELECT pg_catalog.pg_try_advisory_lock($1, 0)`, int32(lockClass)).Scan(&free); err != nil {
		return fault.Env(fmt.Errorf("--dsn server: taking ledgercheck's lock: %s", serverMessage(err)))
	}
	if !free {
		fmt.Fprintf(s.opts.Log, "scratch: waiting for another ledgercheck run on this server to finish\n")
		if _, err := anchor.Exec(ctx, `SELECT pg_catalog.pg_advisory_lock($1, 0)`, int32(lockClass)); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fault.Env(fmt.Errorf("--dsn server: waiting for ledgercheck's lock: %s", serverMessage(err)))
		}
	}
	if _, err := anchor.Exec(ctx, `SELECT pg_catalog.pg_advisory_lock($1, $2)`, int32(lockClass), runKey(s.runID)); err != nil {
		return fault.Env(fmt.Errorf("--dsn server: taking the run's lock: %s", serverMessage(err)))
	}
	dropped, err := sweepDeadRuns(ctx, anchor, 0, s.runID)
	if len(dropped) > 0 {
		fmt.Fprintf(s.opts.Log, "scratch: dropped what killed runs left on the server: %s\n", strings.Join(dropped, ", "))
	}
	return err
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
		return fault.Env(fmt.Errorf("checking for ledgercheck's guard module: %s", serverMessage(err)))
	}
	loaded := version != nil && *version != ""
	switch {
	case s.cl != nil && s.opts.noGuard:
	case s.cl != nil && !loaded:
		return fault.Env(errors.New("the embedded PostgreSQL 15 cluster started without ledgercheck's guard module: run `make setup` as root"))
	case s.cl != nil && *version != guardDigest():
		return fault.Env(fmt.Errorf("the installed ledgercheck guard module (version %s) was built from another source than this ledgercheck's (%s): run `make setup` as root to rebuild it", *version, guardDigest()))
	case s.cl == nil && !loaded:
		s.noCreateRole = "on a PostgreSQL 15 --dsn server, user SQL may not create roles: PostgreSQL 15's CREATEROLE could grant any role, pg_execute_server_program included; use PostgreSQL 16 or later, the embedded cluster, or load ledgercheck's guard module on the server (scratch/guard)"
	}
	return nil
}

// Cleanup drops what runs of ledgercheck that are gone left on the server at dsn (a run killed
// with SIGKILL cannot drop its own): their databases, the roles their user SQL created, their
// install roles and the Supabase API roles they created. Runs that are still going are never
// touched, nor is anything whose name or mark is not a run's. olderThan (0 or more) leaves
// alone what runs that started less than that long ago left. It returns what it dropped.
func Cleanup(ctx context.Context, dsn string, olderThan time.Duration) ([]string, error) {
	if olderThan < 0 {
		return nil, fault.Input(fmt.Errorf("--older-than %s: want a duration of 0 or more", olderThan))
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fault.Input(fmt.Errorf("--dsn: %v", err))
	}
	privileged.Config(cfg)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("cannot connect to --dsn server: %s", serverMessage(err)))
	}
	defer conn.Close(context.Background())
	var super bool
	if err := conn.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname OPERATOR(pg_catalog.=) current_user`).Scan(&super); err != nil {
		return nil, fault.Env(fmt.Errorf("--dsn server: reading the role's attributes: %s", serverMessage(err)))
	}
	if !super {
		return nil, fault.Env(errors.New("cleanup needs the --dsn role to be a superuser, as runs do"))
	}
	return sweepDeadRuns(ctx, conn, olderThan, "")
}

// sweepDeadRuns drops the leftovers of every run other than self whose lock no session holds
// and that started at least olderThan ago. A run is known by its install role, whose mark was
// set in the transaction that created it; its databases are those it, or a role it
// administers, owns (whatever they were renamed to).
func sweepDeadRuns(ctx context.Context, conn *pgx.Conn, olderThan time.Duration, self string) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT objid::pg_catalog.int4 FROM pg_locks WHERE locktype OPERATOR(pg_catalog.=) 'advisory' AND classid OPERATOR(pg_catalog.=) $1::pg_catalog.oid
		AND objsubid OPERATOR(pg_catalog.=) 2 AND granted`, int64(lockClass))
	if err != nil {
		return nil, fault.Env(fmt.Errorf("listing the runs in progress: %s", serverMessage(err)))
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, fault.Env(fmt.Errorf("listing the runs in progress: %s", serverMessage(err)))
	}
	type roleRow struct{ name, comment string }
	rows, err = conn.Query(ctx, `SELECT r.rolname, coalesce(pg_catalog.shobj_description(r.oid, 'pg_authid'), '') FROM pg_roles r
		WHERE r.rolname OPERATOR(pg_catalog.~~) 'ledgercheck\_%' OR r.rolname OPERATOR(pg_catalog.=) ANY($1::pg_catalog.text[]) ORDER BY 1`, apiRoles)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("listing roles: %s", serverMessage(err)))
	}
	roles, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (roleRow, error) {
		var x roleRow
		return x, r.Scan(&x.name, &x.comment)
	})
	if err != nil {
		return nil, fault.Env(fmt.Errorf("listing roles: %s", serverMessage(err)))
	}
	dead := map[string]bool{} // run ids
	api := map[string][]string{}
	for _, r := range roles {
		id, at, marked := markedRun(r.comment)
		if !marked || id == self || slices.Contains(keys, runKey(id)) || time.Since(at) < olderThan {
			continue
		}
		if m := runRoleName.FindStringSubmatch(r.name); m != nil && m[1] == id {
			dead[id] = true
		} else if slices.Contains(apiRoles, r.name) || r.name == readerName(id) {
			api[id] = append(api[id], r.name)
		}
	}
	ids := make([]string, 0, len(dead))
	for id := range dead {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var dropped []string
	var errs []error
	for _, id := range ids {
		install := NamePrefix + id
		rows, err := conn.Query(ctx, `SELECT d.datname FROM pg_database d JOIN pg_roles o ON o.oid OPERATOR(pg_catalog.=) d.datdba
			WHERE o.rolname OPERATOR(pg_catalog.=) $1::pg_catalog.text
			   OR o.oid OPERATOR(pg_catalog.=) ANY (SELECT m.roleid FROM pg_auth_members m JOIN pg_roles i ON i.oid OPERATOR(pg_catalog.=) m.member
			                                       WHERE i.rolname OPERATOR(pg_catalog.=) $1::pg_catalog.text AND m.admin_option)
			ORDER BY 1`, install)
		if err != nil {
			return dropped, fault.Env(fmt.Errorf("listing the databases of %s: %s", install, serverMessage(err)))
		}
		dbs, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return dropped, fault.Env(fmt.Errorf("listing the databases of %s: %s", install, serverMessage(err)))
		}
		for _, d := range dbs {
			if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(d)+" WITH (FORCE)"); err != nil {
				errs = append(errs, fmt.Errorf("dropping %s: %s", d, serverMessage(err)))
				continue
			}
			dropped = append(dropped, d)
		}
		names, err := dropRoles(ctx, conn, install, api[id], nil)
		dropped = append(dropped, names...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return dropped, fault.Env(errors.Join(errs...))
	}
	return dropped, nil
}

// dropRoles drops the roles install administers (created by user SQL that ran as it), install
// itself, then api. A role that something outside the run still depends on (another client's
// database) cannot be dropped and is left alone, and said so on log.
func dropRoles(ctx context.Context, conn *pgx.Conn, install string, api []string, log io.Writer) ([]string, error) {
	if log == nil {
		log = io.Discard
	}
	var names []string
	if install != "" {
		rows, err := conn.Query(ctx, `SELECT r.rolname FROM pg_auth_members m
			JOIN pg_roles r ON r.oid OPERATOR(pg_catalog.=) m.roleid JOIN pg_roles i ON i.oid OPERATOR(pg_catalog.=) m.member
			WHERE i.rolname OPERATOR(pg_catalog.=) $1::pg_catalog.text AND m.admin_option
			  AND r.rolname OPERATOR(pg_catalog.<>) ALL($2::pg_catalog.text[]) AND r.rolname OPERATOR(pg_catalog.!~) '^pg_'
			ORDER BY 1`, install, apiRoles)
		if err != nil {
			return nil, fault.Env(fmt.Errorf("listing the roles %s created: %s", install, serverMessage(err)))
		}
		if names, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return nil, fault.Env(fmt.Errorf("listing the roles %s created: %s", install, serverMessage(err)))
		}
		names = append(names, install)
	}
	names = append(names, api...)
	var dropped []string
	for _, n := range names {
		if _, err := conn.Exec(ctx, "DROP ROLE IF EXISTS "+ident(n)); err != nil {
			fmt.Fprintf(log, "scratch: role %s stays on the server: %s\n", n, serverMessage(err))
			continue
		}
		dropped = append(dropped, "role "+n)
	}
	return dropped, nil
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
