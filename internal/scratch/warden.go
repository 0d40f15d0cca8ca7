package scratch

import (
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// What user SQL does to the run's environment is the SQL's fault, not the environment's.
//
// The install role may change its own password, set local_preload_libraries (or role,
// default_transaction_read_only, an idle timeout: brokenSettings) on itself or on a database it
// owns, and set CONNECTION LIMIT 0, ALLOW_CONNECTIONS false or revoke CONNECT on any of the run's
// databases (it owns them all). Each of those makes a later session of the run (the next
// script, a rerun, another variant, a snapshot) fail to connect or to work, which used to end
// the run as an environment error with no report, or blame another file. The warden checks, on a superuser session of its
// own, that the run's role and databases are still as the run needs them; it puts back what
// changed and charges the change to the statement of user SQL that made it. [Database.Exec]
// then returns that as a [*ScriptError] whose Err is a [*SelfInflicted]: a finding at the
// statement, and the run goes on.
//
// When it checks: after each statement of user SQL whose command tag says it may have done it
// (ALTER ROLE, ALTER DATABASE, or a statement that runs code: DO, CALL, SELECT, EXECUTE), after
// each script (for code run by any other statement: a trigger, a default), and when a session of
// the run fails to connect for one of the reasons above (a change made by a script of another
// variant that is still running). A check costs one round trip on the warden's session (0.1 ms
// on an idle machine, a median of 0.25 ms during a run); a `check` of the shipped files makes
// 53 of them. After every statement it would find the statement exactly, but double the round
// trips of every install. The command tags single out the statements that can make such a change directly
// (ALTER ROLE) or at all (the run's databases have random names that only SQL built at run time
// knows); a change found at the end of a script is charged to its last statement, and the
// message gives the range of statements since the check before.
//
// Variants run side by side, so the script that finds a change may not be the one that made it.
// A change is charged to the script whose last completed statement made it directly (ALTER ROLE)
// if there is one; else, when statements of other scripts were running at the check, it waits
// for them to complete and goes to the one whose statement explains it better (ran code, or
// altered the role) than the checking script's last statement, else to the checking script. Two
// scripts whose statements both ran code cannot be told apart by their tags; the change then goes
// to the one that checked, right after its own statement.

// SelfInflicted is a failure user SQL caused to itself: what it did to the run's own role,
// databases or server while it ran, or the install time limit it ran past. It is the SQL's fault
// (a finding at the statement), not the environment's.
type SelfInflicted struct {
	// Msg says what happened, as a clause ("it changed the password of the role it runs as, ...").
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

// execution is one script run by [Database.Exec], as the warden sees it.
type execution struct {
	sc       *Script
	db       string // the database it runs in
	last     int    // index into sc.Statements of the last statement completed or failed (-1: none)
	lastTag  string // its command tag ("" when it failed)
	seq      uint64 // orders the statements of all scripts by completion
	inflight bool   // a statement of it is running
	checked  int    // sc.Statements[:checked] were covered by a check
	changes  []charged
}

// charged is a change charged to a statement.
type charged struct {
	msg         string
	stmt, since int // the statement, and the first one since the check before
}

// pending is a change found while statements of other scripts were running (cands): it is
// charged once they complete, to the one whose statement explains it best ([score]) if it
// explains it better than the fallback's, else to the fallback.
type pending struct {
	p        problem
	cands    map[*execution]bool
	best     *execution // the best candidate so far (nil: none yet)
	bestStmt int
	bestTag  string
	fallback *execution // the script that checked, or the last to run code (nil: none)
	fbStmt   int
	fbSince  int
	fbTag    string
	settled  bool
	done     chan struct{} // closed when settled
}

// warden watches the run's environment for changes user SQL makes to it (see above).
type warden struct {
	// session serializes the checks; it guards conn and verifier. mu guards the rest, and is
	// never held across a round trip: every statement of user SQL takes it.
	session  sync.Mutex
	conn     *pgx.Conn // a superuser session of the maintenance database
	verifier string    // the install role's password verifier last seen to match the password

	mu      sync.Mutex
	active  map[*execution]struct{}
	pending []*pending
	seq     uint64 // statements completed
}

// watch registers a script that starts running.
func (s *Server) watch(sc *Script, db string) *execution {
	e := &execution{sc: sc, db: db, last: -1}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	if s.w.active == nil {
		s.w.active = map[*execution]struct{}{}
	}
	s.w.active[e] = struct{}{}
	return e
}

// unwatch unregisters e and returns the first change charged to it as a *ScriptError, or nil.
// A change that may be e's, or another script's whose statement is still running, is first
// settled: it waits for that statement (see [pending]), at most the install time limit.
func (s *Server) unwatch(e *execution) *ScriptError {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	timer := time.NewTimer(s.opts.InstallTimeout)
	defer timer.Stop()
	for {
		var wait *pending
		for _, pd := range slices.Clone(s.w.pending) {
			if pd.cands[e] { // e runs no statement any more
				delete(pd.cands, e)
				if len(pd.cands) == 0 {
					s.settle(pd)
					continue
				}
			}
			if pd.best == e || pd.fallback == e {
				wait = pd
			}
		}
		if wait == nil {
			break
		}
		s.w.mu.Unlock()
		select {
		case <-wait.done:
		case <-timer.C:
		}
		s.w.mu.Lock()
		if !wait.settled {
			s.settle(wait)
		}
	}
	delete(s.w.active, e)
	if len(e.changes) == 0 {
		return nil
	}
	c := e.changes[0]
	msg := c.msg
	if n := len(e.changes) - 1; n > 0 {
		msg += fmt.Sprintf(", and made %d more such changes to the run's role and databases; ledgercheck put them all back", n)
	} else {
		msg += "; ledgercheck put it back"
	}
	st := e.sc.Statements[c.stmt]
	if c.since < c.stmt {
		msg += fmt.Sprintf(" (found after this statement: it or one of the statements since line %d made the change)", e.sc.Statements[c.since].Pos.Line)
	}
	return &ScriptError{Pos: st.Pos, Stmt: st.Index, Err: &SelfInflicted{Msg: msg}}
}

// starting records that a statement of e is about to run.
func (s *Server) starting(e *execution) {
	s.w.mu.Lock()
	e.inflight = true
	s.w.mu.Unlock()
}

// ran records that statement i of e completed with tag (or failed: tag ""), and reports whether
// the warden should check now. A change found while it ran may be its own: see [pending].
func (s *Server) ran(e *execution, i int, tag string) bool {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	s.w.seq++
	e.last, e.lastTag, e.seq, e.inflight = i, tag, s.w.seq, false
	for _, pd := range slices.Clone(s.w.pending) {
		if !pd.cands[e] {
			continue
		}
		delete(pd.cands, e)
		if pd.best == nil || score(tag, pd.p.role) > score(pd.bestTag, pd.p.role) {
			pd.best, pd.bestStmt, pd.bestTag = e, i, tag
		}
		if len(pd.cands) == 0 || score(tag, pd.p.role) == 2 {
			s.settle(pd)
		}
	}
	return suspect(tag)
}

// settle charges pd (see [pending]) and forgets it (w.mu held).
func (s *Server) settle(pd *pending) {
	if pd.settled {
		return
	}
	pd.settled = true
	close(pd.done)
	s.w.pending = slices.DeleteFunc(s.w.pending, func(x *pending) bool { return x == pd })
	switch {
	case pd.best != nil && (pd.fallback == nil || score(pd.bestTag, pd.p.role) > score(pd.fbTag, pd.p.role)):
		s.charge(pd.best, pd.p, pd.bestStmt, pd.bestStmt)
	case pd.fallback != nil:
		s.charge(pd.fallback, pd.p, pd.fbStmt, pd.fbSince)
	default:
		s.orphan(pd.p)
	}
}

// orphan logs a change no running script can be charged with (w.mu held).
func (s *Server) orphan(p problem) {
	fmt.Fprintf(s.opts.Log, "scratch: user SQL %s; put back, but no running script could have done it\n", strings.TrimPrefix(p.text(&execution{}), "it "))
}

// charge records p against statement stmt of e (since: the first statement since the check
// before, for a change found after several).
func (s *Server) charge(e *execution, p problem, stmt, since int) {
	e.changes = append(e.changes, charged{msg: p.text(e), stmt: stmt, since: since})
}

// suspect reports whether a statement with this command tag can have changed a role or a
// database: directly, or by running code.
func suspect(tag string) bool {
	switch {
	case tag == "ALTER ROLE", tag == "ALTER DATABASE", tag == "DO", tag == "CALL":
		return true
	case strings.HasPrefix(tag, "SELECT"), strings.HasPrefix(tag, "EXECUTE"):
		return true
	}
	return false
}

// fits reports whether a statement with this tag can have made a change of this kind (role: to
// the install role, else to a database) directly. Only ALTER ROLE can: the run's databases have
// random names, which only SQL built at run time knows.
func fits(tag string, role bool) bool { return role && tag == "ALTER ROLE" }

// score ranks how well a statement's tag explains a change: 2 it makes such changes (fits), 1 it
// runs code (suspect), 0 neither.
func score(tag string, role bool) int {
	switch {
	case fits(tag, role):
		return 2
	case suspect(tag):
		return 1
	}
	return 0
}

// problem is one way the run's role or databases differ from what the run needs.
type problem struct {
	role bool   // the install role's (else a database's)
	db   string // the database, for a database's
	msg  string // what user SQL did, as a clause; a database's says "on \x00"
	fix  string // the superuser's SQL that puts it back
}

// text says what p is, for the script e charged with it: "its own database" or the
// database's name.
func (p problem) text(e *execution) string {
	where := "database " + p.db + ", one of the run's"
	if p.db == e.db {
		where = "its own database"
	}
	return strings.ReplaceAll(p.msg, "\x00", where)
}

// wardenQuery reads, as the superuser, what user SQL can change of the install role ($1) and
// of the run's databases ($2) that stops a later session of the run from connecting or working
// (the settings $3): one row per finding (kind, database, role, detail). It runs on a superuser
// session, so every function, operator and type is pg_catalog's, by name (the rule for
// privileged sessions: docs/architecture.md).
const wardenQuery = `
SELECT 'password', '', '', a.rolpassword FROM pg_catalog.pg_authid a
 WHERE a.rolname OPERATOR(pg_catalog.=) $1::pg_catalog.text
UNION ALL
SELECT 'nologin', '', '', '' FROM pg_catalog.pg_authid a
 WHERE a.rolname OPERATOR(pg_catalog.=) $1::pg_catalog.text AND NOT a.rolcanlogin
UNION ALL
SELECT 'rolelimit', '', '', a.rolconnlimit::pg_catalog.text FROM pg_catalog.pg_authid a
 WHERE a.rolname OPERATOR(pg_catalog.=) $1::pg_catalog.text AND a.rolconnlimit OPERATOR(pg_catalog.>=) 0
UNION ALL
SELECT 'dblimit', d.datname::pg_catalog.text, '', d.datconnlimit::pg_catalog.text FROM pg_catalog.pg_database d
 WHERE d.datname OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.name[]) AND d.datconnlimit OPERATOR(pg_catalog.>=) 0
UNION ALL
SELECT 'noconn', d.datname::pg_catalog.text, '', '' FROM pg_catalog.pg_database d
 WHERE d.datname OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.name[]) AND NOT d.datallowconn
UNION ALL
SELECT 'noconnect', d.datname::pg_catalog.text, '', '' FROM pg_catalog.pg_database d
 WHERE d.datname OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.name[])
   AND NOT pg_catalog.has_database_privilege($1::pg_catalog.name, d.oid, 'CONNECT')
UNION ALL
SELECT 'setting', COALESCE(d.datname::pg_catalog.text, ''), COALESCE(a.rolname::pg_catalog.text, ''), c.c
  FROM pg_catalog.pg_db_role_setting s
  LEFT JOIN pg_catalog.pg_database d ON d.oid OPERATOR(pg_catalog.=) s.setdatabase
  LEFT JOIN pg_catalog.pg_authid a ON a.oid OPERATOR(pg_catalog.=) s.setrole,
  LATERAL pg_catalog.unnest(s.setconfig) AS c(c)
 WHERE pg_catalog.split_part(c.c, '=', 1) OPERATOR(pg_catalog.=) ANY ($3::pg_catalog.text[])
   AND ((a.rolname OPERATOR(pg_catalog.=) $1::pg_catalog.text
         AND (s.setdatabase OPERATOR(pg_catalog.=) '0'::pg_catalog.oid OR d.datname OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.name[])))
     OR (s.setrole OPERATOR(pg_catalog.=) '0'::pg_catalog.oid AND d.datname OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.name[])))`

// brokenSettings are the settings that, on the install role or on one of the run's databases,
// stop the run's later sessions (which set statement_timeout, lock_timeout and search_path
// themselves, so a migration may set those on its role), with why.
var brokenSettings = []string{"local_preload_libraries", "session_preload_libraries", "role", "session_authorization",
	"default_transaction_read_only", "idle_session_timeout", "idle_in_transaction_session_timeout", "transaction_timeout"}

// settingHarm says what a setting of brokenSettings does to the run's later sessions.
func settingHarm(name string) string {
	switch name {
	case "local_preload_libraries", "session_preload_libraries":
		return "so no later session of the run could start (a library that does not load ends every session)"
	case "role", "session_authorization":
		return "so later sessions of the run would not run as the role they log in as"
	case "default_transaction_read_only":
		return "so later sessions of the run could not write"
	}
	return "so later sessions of the run would be ended while they wait"
}

// inspect reads what differs, on the warden's session (w.session held), and says how to put it back.
func (s *Server) inspect(ctx context.Context) ([]problem, error) {
	s.mu.Lock()
	dbs := slices.Clone(s.created)
	s.mu.Unlock()
	type row struct{ kind, db, role, detail string }
	var found []row
	var err error
	// The session is opened on first use and again when it was lost: the cache's first run
	// restarts the cluster after the templates (and the prerequisite files) are built.
	for attempt := 0; attempt < 2; attempt++ {
		if s.w.conn == nil || s.w.conn.IsClosed() {
			cfg := s.admin.Copy() // a privileged session: search_path pg_catalog, role none
			cfg.RuntimeParams["application_name"] = "ledgercheck (warden)"
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				// The server, or the sandbox it runs in, is not there to be asked (it died, or
				// what the SQL did to it refuses the superuser too): nothing to put back here,
				// and the script's next statement, or the step after it, fails and is blamed.
				return nil, nil
			}
			s.w.conn = conn
		}
		var rows pgx.Rows
		if rows, err = s.w.conn.Query(ctx, wardenQuery, s.installRole, dbs, brokenSettings); err == nil {
			found, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
				var x row
				return x, r.Scan(&x.kind, &x.db, &x.role, &x.detail)
			})
		}
		var pe *pgconn.PgError
		if err == nil || errors.As(err, &pe) || ctx.Err() != nil {
			break
		}
		s.w.conn.Close(ctx)
		s.w.conn = nil
	}
	if err != nil {
		return nil, fault.Env(fmt.Errorf("checking the run's role and databases: %s", serverMessage(err)))
	}
	role := ident(s.installRole)
	var out []problem
	for _, r := range found {
		switch r.kind {
		case "password":
			if r.detail == s.w.verifier {
				continue
			}
			if verifies(r.detail, s.installRole, s.installPass) {
				s.w.verifier = r.detail
				continue
			}
			out = append(out, problem{true, "", "it changed the password of the role it runs as, so no later session of the run could log in",
				"ALTER ROLE " + role + " PASSWORD " + quoteLiteral(s.installPass)})
		case "nologin":
			out = append(out, problem{true, "", "it made the role it runs as NOLOGIN", "ALTER ROLE " + role + " LOGIN"})
		case "rolelimit":
			out = append(out, problem{true, "", fmt.Sprintf("it set CONNECTION LIMIT %s on the role it runs as", r.detail), "ALTER ROLE " + role + " CONNECTION LIMIT -1"})
		case "dblimit":
			out = append(out, problem{false, r.db, fmt.Sprintf("it set CONNECTION LIMIT %s on \x00", r.detail), "ALTER DATABASE " + ident(r.db) + " CONNECTION LIMIT -1"})
		case "noconn":
			out = append(out, problem{false, r.db, "it set ALLOW_CONNECTIONS false on \x00", "ALTER DATABASE " + ident(r.db) + " ALLOW_CONNECTIONS true"})
		case "noconnect":
			out = append(out, problem{false, r.db, "it revoked CONNECT on \x00 from the role it runs as", "GRANT CONNECT ON DATABASE " + ident(r.db) + " TO " + role})
		case "setting":
			name, _, _ := strings.Cut(r.detail, "=")
			p := problem{role: r.role != "", db: r.db, msg: fmt.Sprintf("it set %s", oneLine(r.detail))}
			switch {
			case r.role != "" && r.db != "":
				p.msg += " on the role it runs as in \x00"
				p.fix = "ALTER ROLE " + ident(r.role) + " IN DATABASE " + ident(r.db) + " RESET " + ident(name)
			case r.role != "":
				p.msg += " on the role it runs as"
				p.fix = "ALTER ROLE " + ident(r.role) + " RESET " + ident(name)
			default:
				p.msg += " on \x00"
				p.fix = "ALTER DATABASE " + ident(r.db) + " RESET " + ident(name)
			}
			p.msg += ", " + settingHarm(name)
			out = append(out, p)
		}
	}
	return out, nil
}

// check looks for changes user SQL made to the run's role and databases, puts them back and
// charges each to a statement of a running script; self is the script that asks (nil: a session
// that could not connect). It reports whether it put anything back.
//
// Whom to charge: a script whose last completed statement made such a change directly (ALTER
// ROLE), if any; else, when statements of other scripts are running, the change waits for them
// to complete ([pending]); else self, or the script that last ran code.
func (s *Server) check(ctx context.Context, self *execution) (bool, error) {
	s.w.session.Lock()
	defer s.w.session.Unlock()
	// What completed before the read is what the read covers.
	s.w.mu.Lock()
	before := make(map[*execution]int, len(s.w.active))
	for e := range s.w.active {
		before[e] = e.last
	}
	s.w.mu.Unlock()
	// A repair half done is worse than none: it runs to its end, within a bound of its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	found, err := s.inspect(ctx)
	if err != nil {
		return false, err
	}
	for _, p := range found {
		if _, err := s.w.conn.Exec(ctx, p.fix); err != nil {
			return false, fault.Env(fmt.Errorf("restoring the run's role and databases after user SQL: %s", serverMessage(err)))
		}
	}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	for _, p := range found {
		s.attribute(p, self)
	}
	for e, last := range before {
		e.checked = max(e.checked, last+1)
	}
	return len(found) > 0, nil
}

// attribute charges p, found now, to a statement, or leaves it pending (w.mu held).
func (s *Server) attribute(p problem, self *execution) {
	var fallback *execution
	if self != nil && self.last >= 0 {
		fallback = self
	}
	cands := map[*execution]bool{}
	for e := range s.w.active {
		if e.last >= 0 && e.checked <= e.last && fits(e.lastTag, p.role) {
			s.charge(e, p, e.last, e.last)
			return
		}
		if e.inflight && e != self {
			cands[e] = true
		}
		if self == nil && e.last >= 0 && (fallback == nil || score(e.lastTag, p.role) > score(fallback.lastTag, p.role) ||
			score(e.lastTag, p.role) == score(fallback.lastTag, p.role) && e.seq > fallback.seq) {
			fallback = e
		}
	}
	pd := &pending{p: p, cands: cands, fallback: fallback, done: make(chan struct{})}
	if fallback != nil {
		pd.fbStmt, pd.fbSince, pd.fbTag = fallback.last, min(fallback.checked, fallback.last), fallback.lastTag
	}
	if len(cands) == 0 {
		s.settle(pd)
		return
	}
	s.w.pending = append(s.w.pending, pd)
}

// closeWarden closes the warden's session.
func (s *Server) closeWarden() {
	s.w.session.Lock()
	defer s.w.session.Unlock()
	if s.w.conn != nil {
		s.w.conn.Close(context.Background())
		s.w.conn = nil
	}
}

// blocked reports whether a session could not connect for a reason user SQL can cause: a
// password that no longer matches, a role that may not log in, a connection limit, a database
// that does not accept connections or whose CONNECT was revoked, a library that does not load.
func blocked(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "28P01", "28000", "53300", "55000", "42501", "58P01":
		return true
	}
	return false
}

// connectRepaired connects with cfg; when the connection is refused for a reason user SQL can
// cause, the warden puts the run's role and databases back and it tries once more.
func (s *Server) connectRepaired(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil || !blocked(err) || ctx.Err() != nil {
		return conn, err
	}
	// Whether this check puts something back or the script that made the change has put it
	// back since (its own check), the next attempt connects; if it does not, the reason was
	// not user SQL's.
	if _, cerr := s.check(ctx, nil); cerr != nil {
		return nil, err
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// verifies reports whether verifier (pg_authid.rolpassword) is the password's, for role: a
// SCRAM-SHA-256 verifier or an MD5 hash, as PostgreSQL stores them.
func verifies(verifier, role, password string) bool {
	if h, ok := strings.CutPrefix(verifier, "md5"); ok {
		sum := md5.Sum([]byte(password + role))
		return hmac.Equal([]byte(h), []byte(hex.EncodeToString(sum[:])))
	}
	// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>
	rest, ok := strings.CutPrefix(verifier, "SCRAM-SHA-256$")
	if !ok {
		return false
	}
	params, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return false
	}
	iterText, saltText, ok1 := strings.Cut(params, ":")
	storedText, _, ok2 := strings.Cut(keys, ":")
	iter, err1 := strconv.Atoi(iterText)
	salt, err2 := base64.StdEncoding.DecodeString(saltText)
	stored, err3 := base64.StdEncoding.DecodeString(storedText)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || err3 != nil || iter <= 0 || iter > 1<<24 {
		return false
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, iter, sha256.Size)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, salted)
	mac.Write([]byte("Client Key"))
	sum := sha256.Sum256(mac.Sum(nil))
	return hmac.Equal(sum[:], stored)
}

// oneLine returns s with its runs of white space (newlines included) as one space, cut at 200
// characters: a setting's value as user SQL wrote it, in a one-line message.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "..."
	}
	return s
}
