package scratch

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// What user SQL does to the run's environment is the SQL's fault, not the environment's, and is
// charged to the statement that did it, whatever else runs at the time.
//
// The install role owns every database of the run and may, from any of them, change its own
// password and settings (ALTER ROLE ... SET local_preload_libraries, role,
// default_transaction_read_only, ...) and any of the run's databases: CONNECTION LIMIT,
// ALLOW_CONNECTIONS, IS_TEMPLATE, its settings, REVOKE CONNECT. Each of those would stop a later
// session of the run (the next script, a rerun, the reader of the digests, another variant's
// install) from connecting or working; variants run side by side on one role, so the session
// that met the change was often not the one that made it.
//
// So the warden makes those changes wait, and asks the server who waits. On a superuser session
// of its own it holds, for the whole run, one transaction that:
//   - locks (FOR SHARE) the install role's row of pg_authid, every run database's row of
//     pg_database and its login role's (login.go): ALTER ROLE of the install role or a login
//     role (its password) and ALTER DATABASE, GRANT and REVOKE ON DATABASE of a run database
//     must update that row, and wait for the transaction;
//   - writes, uncommitted, a setting of its own for the install role, for the install role in
//     each run database, for each run database and for its login role, alone and in it
//     (pg_db_role_setting): ALTER ROLE ... SET and ALTER DATABASE ... SET must write the same
//     row, and wait for it.
//
// Nothing else waits for it: sessions connect, read the catalog and create databases as ever,
// and see none of what the transaction wrote. While a statement of a script runs longer than a
// moment, the warden asks the server (pg_locks) whether that script's session waits for the
// transaction; if it does, the statement tried one of those changes: the warden ends the
// session and charges the statement, which [Database.Exec] returns as a [*ScriptError] whose
// Err is a [*SelfInflicted]. The change never happened, so there is nothing to put back, and
// the server names the session, so no other script can be charged with it. A session of the
// install role outside a script (a probe, generated rows) that tries one waits until its
// lock_timeout, and its statement fails as any other.

// SelfInflicted is a failure user SQL caused to itself: a change it tried to make to the run's
// own role or databases, or the install time limit it ran past. It is the SQL's fault (a finding
// at the statement), not the environment's.
type SelfInflicted struct {
	// Msg says what happened, as a clause ("it changed the password ...").
	Msg string
	// Timeout is set when the script ran past the install time limit.
	Timeout bool
}

func (e *SelfInflicted) Error() string { return e.Msg }

// SelfInflicted returns the failure the statement caused to its own environment, or nil.
func (e *ScriptError) SelfInflicted() *SelfInflicted {
	si, _ := e.Err.(*SelfInflicted)
	return si
}

// execution is one script run by [Database.Exec], as the warden sees it (Server.w.mu guards it).
type execution struct {
	sc      *Script
	db      string // the database it runs in
	pid     uint32 // its session's backend process
	running int    // index into sc.Statements of the statement running, or that ran last
	busy    bool   // that statement still runs
	over    bool   // the script ended (unwatch)
	timer   *time.Timer
	stopped string // what the warden stopped the running statement for ("": nothing)
	vacuum  bool   // its running statement is a VACUUM the warden lets through (vacuum.go)
	// sentinel is the session of the install role the script must leave standing (login.go).
	sentinel *sentinel
	at       int // the statement it stopped
}

// warden holds what user SQL may not change (see above).
type warden struct {
	// session guards conn and held: one round trip at a time.
	session sync.Mutex
	conn    *pgx.Conn // the superuser session whose transaction holds the rows
	xid     string    // that transaction's id
	held    map[string]bool
	// released: nothing is held any more (ReleaseHold).
	released bool

	mu     sync.Mutex // guards the executions and what follows
	active map[*execution]bool
	paused int        // while > 0 no statement starts: VACUUMs go through (vacuum.go)
	resume *sync.Cond // signalled when that ends
}

// holdWait is how long a statement of a script runs before the warden asks whether it waits for
// its transaction (and again as long as it runs).
const holdWait = 50 * time.Millisecond

// hold opens the warden's session and its transaction, and holds the install role and every
// database of the run (again, after the cluster was restarted).
func (s *Server) hold(ctx context.Context) error {
	s.w.session.Lock()
	defer s.w.session.Unlock()
	return s.holdLocked(ctx)
}

// holdLocked is [Server.hold] with w.session held.
func (s *Server) holdLocked(ctx context.Context) error {
	if s.w.released || s.w.conn != nil && !s.w.conn.IsClosed() {
		return nil
	}
	cfg := s.admin.Copy() // a privileged session: search_path pg_catalog, role none
	cfg.RuntimeParams["application_name"] = "ledgercheck (warden)"
	// The transaction stays open, idle, for the whole run.
	cfg.RuntimeParams["idle_in_transaction_session_timeout"] = "0"
	if s.major >= 17 {
		cfg.RuntimeParams["transaction_timeout"] = "0"
	}
	cfg.RuntimeParams["statement_timeout"] = "0"
	cfg.RuntimeParams["lock_timeout"] = "30s"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fault.Env(serverErrorf(err, "connecting the run's warden"))
	}
	s.w.conn = conn
	if err := s.holdAllLocked(ctx); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		s.w.conn = nil
		return err
	}
	return nil
}

// holdAllLocked begins the warden's transaction on its session and holds the install role and
// every database of the run in it (w.session held).
func (s *Server) holdAllLocked(ctx context.Context) error {
	sql := "BEGIN;\n" +
		"SELECT FROM pg_catalog.pg_authid WHERE rolname OPERATOR(pg_catalog.=) " + quoteLiteral(s.installRole) + " FOR SHARE;\n" +
		"ALTER ROLE " + ident(s.installRole) + " SET ledgercheck.warden = 'held';\n"
	var xid string
	_, err := s.w.conn.Exec(ctx, sql)
	if err == nil {
		err = s.w.conn.QueryRow(ctx, "SELECT pg_catalog.pg_current_xact_id()::pg_catalog.text").Scan(&xid)
	}
	if err != nil {
		return fault.Env(serverErrorf(err, "holding the run's role"))
	}
	s.w.xid, s.w.held = xid, map[string]bool{}
	for _, db := range s.runDatabases() {
		if err := s.holdDatabaseLocked(ctx, db); err != nil {
			return err
		}
	}
	return nil
}

// holdDatabase holds the database name, a new database of the run, before any user SQL runs
// in it.
func (s *Server) holdDatabase(ctx context.Context, name string) error {
	s.w.session.Lock()
	defer s.w.session.Unlock()
	if s.w.conn == nil {
		return nil // not held yet: hold takes every database of the run
	}
	return s.holdDatabaseLocked(ctx, name)
}

func (s *Server) holdDatabaseLocked(ctx context.Context, name string) error {
	if s.w.held[name] {
		return nil
	}
	// A database the run named is not created yet (the name is taken first: createDatabase),
	// and holds itself once it is: its row cannot be held before it exists.
	exists, err := s.lockRow(ctx, "SELECT FROM pg_catalog.pg_database WHERE datname OPERATOR(pg_catalog.=) "+quoteLiteral(name)+" FOR SHARE")
	if err != nil {
		return fault.Env(serverErrorf(err, "holding the run's database %s", name))
	}
	if !exists {
		return nil
	}
	// Its login role (login.go), when it has one: its password and settings are the run's too.
	login, err := s.lockRow(ctx, "SELECT FROM pg_catalog.pg_authid WHERE rolname OPERATOR(pg_catalog.=) "+quoteLiteral(name)+" FOR SHARE")
	if err != nil {
		return fault.Env(serverErrorf(err, "holding the login role of %s", name))
	}
	db := ident(name)
	sql := "ALTER DATABASE " + db + " SET ledgercheck.warden = 'held';\n" +
		"ALTER ROLE " + ident(s.installRole) + " IN DATABASE " + db + " SET ledgercheck.warden = 'held';\n"
	if login {
		sql += "ALTER ROLE " + db + " SET ledgercheck.warden = 'held';\n" +
			"ALTER ROLE " + db + " IN DATABASE " + db + " SET ledgercheck.warden = 'held';\n"
	}
	if _, err := s.w.conn.Exec(ctx, sql); err != nil {
		return fault.Env(serverErrorf(err, "holding the run's database %s", name))
	}
	s.w.held[name] = true
	return nil
}

// lockRow runs sql, a SELECT ... FOR SHARE of at most one row, in the warden's transaction, and
// reports whether it found (and so locked) the row.
func (s *Server) lockRow(ctx context.Context, sql string) (bool, error) {
	rows, err := s.w.conn.Query(ctx, sql)
	if err != nil {
		return false, err
	}
	found := rows.Next()
	rows.Close()
	return found, rows.Err()
}

// ReleaseHold lets go of everything the warden holds, for the rest of the server's life: for a
// database handed to a person (env up), whose statements no verdict depends on and nothing
// would stop while they wait.
func (s *Server) ReleaseHold() {
	s.w.session.Lock()
	defer s.w.session.Unlock()
	s.unholdLocked()
	s.w.released = true
}

// unhold rolls the warden's transaction back and closes its session: nothing is held any more
// (before the run's databases are dropped, or the cluster stops).
func (s *Server) unhold() {
	s.w.session.Lock()
	defer s.w.session.Unlock()
	s.unholdLocked()
}

func (s *Server) unholdLocked() {
	if s.w.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = s.w.conn.Exec(ctx, "ROLLBACK") // closing the session rolls it back anyway
		s.w.conn.Close(ctx)
		s.w.conn, s.w.held = nil, nil
	}
}

// releaseDatabase lets the run drop the database name: the warden's transaction starts again
// without it (the run's other databases are held again at once).
func (s *Server) releaseDatabase(ctx context.Context, name string, drop func() error) error {
	s.w.session.Lock()
	defer s.w.session.Unlock()
	if s.w.conn == nil || !s.w.held[name] {
		return drop()
	}
	s.unholdLocked()
	err := drop()
	return errors.Join(err, s.holdLocked(ctx))
}

// runDatabases are the run's databases: those it created and its templates (taken from the
// cache, they were not created by this run).
func (s *Server) runDatabases() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.created...)
	for _, t := range s.templates {
		if t.name != "" {
			out = append(out, t.name)
		}
	}
	return out
}

// watch starts watching a script that runs in database db on the session of backend pid.
func (s *Server) watch(sc *Script, db string, pid uint32) *execution {
	e := &execution{sc: sc, db: db, pid: pid, running: -1}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	if s.w.active == nil {
		s.w.active = map[*execution]bool{}
		s.w.resume = sync.NewCond(&s.w.mu)
	}
	s.w.active[e] = true
	return e
}

// unwatch stops watching e and returns what the warden stopped it for as a *ScriptError, or nil.
func (s *Server) unwatch(e *execution) *ScriptError {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	e.over, e.busy = true, false
	delete(s.w.active, e)
	if e.timer != nil {
		e.timer.Stop()
	}
	if e.stopped == "" {
		return nil
	}
	st := e.sc.Statements[e.at]
	return &ScriptError{Pos: st.Pos, Stmt: st.Index, Err: &SelfInflicted{Msg: e.stopped}}
}

// starting records that statement i of e is about to run: unless it ends within holdWait, the
// warden asks whether it waits for the warden's transaction.
func (s *Server) starting(e *execution, i int) {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	for s.w.paused > 0 { // a VACUUM goes through (vacuum.go)
		s.w.resume.Wait()
	}
	e.running, e.busy = i, true
	if e.timer == nil {
		e.timer = time.AfterFunc(holdWait, func() { s.waits(e) })
	} else {
		e.timer.Reset(holdWait)
	}
}

// ran records that the running statement of e ended.
func (s *Server) ran(e *execution) {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	e.busy = false
	if e.timer != nil {
		e.timer.Stop()
	}
}

// waitsQuery tells whether the backend $1 waits for the warden's transaction ($2), or, behind
// another session, for a row the warden holds, and what of the run it was changing: "database" and the name of the database whose row it locked, "role"
// (the install role's row), "setting", or "frozenid": VACUUM writing the database's frozen
// transaction id into its row (vacuum.go). It runs on the warden's superuser session: every
// function, operator and type is pg_catalog's (docs/architecture.md, "Privileged sessions").
const waitsQuery = `SELECT CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_locks f WHERE f.pid OPERATOR(pg_catalog.=) w.pid
                                AND f.locktype OPERATOR(pg_catalog.=) 'frozenid' AND f.granted) THEN 'frozenid'
            WHEN t.relation OPERATOR(pg_catalog.=) 'pg_catalog.pg_database'::pg_catalog.regclass THEN 'database'
            WHEN t.relation OPERATOR(pg_catalog.=) 'pg_catalog.pg_authid'::pg_catalog.regclass THEN 'role' ELSE 'setting' END,
       coalesce((SELECT d.datname::pg_catalog.text FROM pg_catalog.pg_database d
                  WHERE d.ctid OPERATOR(pg_catalog.=) pg_catalog.format('(%s,%s)', t.page, t.tuple)::pg_catalog.tid
                    AND t.relation OPERATOR(pg_catalog.=) 'pg_catalog.pg_database'::pg_catalog.regclass), '')
  FROM pg_catalog.pg_locks w
  LEFT JOIN pg_catalog.pg_locks t ON t.pid OPERATOR(pg_catalog.=) w.pid AND t.locktype OPERATOR(pg_catalog.=) 'tuple'
       AND t.relation OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog.pg_database'::pg_catalog.regclass, 'pg_catalog.pg_authid'::pg_catalog.regclass])
 WHERE w.pid OPERATOR(pg_catalog.=) $1::pg_catalog.int4 AND NOT w.granted
   AND (w.locktype OPERATOR(pg_catalog.=) 'transactionid' AND w.transactionid::pg_catalog.text OPERATOR(pg_catalog.=) $2::pg_catalog.text
        OR w.locktype OPERATOR(pg_catalog.=) 'tuple'
           AND w.relation OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog.pg_database'::pg_catalog.regclass, 'pg_catalog.pg_authid'::pg_catalog.regclass]))
 LIMIT 1`

// waits asks whether e's running statement waits for the warden's transaction; if it does, it
// ends e's session and charges the statement, else it asks again later while it runs.
func (s *Server) waits(e *execution) {
	s.w.mu.Lock()
	i, pid, over := e.running, e.pid, e.over
	s.w.mu.Unlock()
	if over {
		return
	}
	kind, db, waiting := s.waitingFor(pid)
	if waiting && kind == "frozenid" {
		s.letVacuumThrough(e)
		waiting = false
	}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	if !waiting {
		if e.busy && !e.over && e.running == i {
			e.timer.Reset(holdWait) // the same statement still runs: ask again
		}
		return
	}
	if e.over {
		return
	}
	if e.stopped == "" {
		// The statement running now is the one that waits: one that waits for the warden does
		// not end until the warden ends it (or its lock_timeout does).
		e.stopped, e.at = s.stoppedFor(e, kind, db), e.running
	}
	s.w.mu.Unlock()
	s.terminate(pid)
	s.w.mu.Lock()
}

// waitingFor asks the server whether backend pid waits for the warden's transaction, and for
// what (see waitsQuery).
func (s *Server) waitingFor(pid uint32) (kind, db string, waiting bool) {
	s.w.session.Lock()
	defer s.w.session.Unlock()
	if s.w.conn == nil || s.w.conn.IsClosed() {
		return "", "", false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.w.conn.QueryRow(ctx, waitsQuery, int32(pid), s.w.xid).Scan(&kind, &db)
	return kind, db, err == nil
}

// terminate ends the backend pid (a session of the install role the warden stopped).
func (s *Server) terminate(pid uint32) {
	s.w.session.Lock()
	defer s.w.session.Unlock()
	if s.w.conn == nil || s.w.conn.IsClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = s.w.conn.Exec(ctx, "SELECT pg_catalog.pg_terminate_backend("+strconv.FormatUint(uint64(pid), 10)+")")
}

// stoppedFor says what e's statement tried, from what it waited on (see waitsQuery).
func (s *Server) stoppedFor(e *execution, kind, db string) string {
	const why = ", which the run's later sessions need as it was: ledgercheck stopped the statement"
	const dbChange = " (ALTER DATABASE: CONNECTION LIMIT, ALLOW_CONNECTIONS, IS_TEMPLATE, OWNER, ...; or GRANT or REVOKE on it)"
	switch {
	case kind == "role":
		return "it changed the role it runs as (ALTER ROLE: its password or attributes)" + why
	case kind == "database" && db == e.db:
		return "it changed its own database" + dbChange + why
	case kind == "database":
		return "it changed database " + db + ", one of the run's" + dbChange + why
	}
	return "it changed a setting of the role it runs as or of one of the run's databases (ALTER ROLE or ALTER DATABASE ... SET), which every later session would apply: ledgercheck stopped the statement"
}
