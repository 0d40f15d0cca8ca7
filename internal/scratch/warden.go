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

	"ledgercheck/internal/fault"
)

// What user SQL does to the run's environment is the SQL's fault, not the environment's.
//
// The install role may change its own password, set local_preload_libraries on itself or on a
// database it owns, and set CONNECTION LIMIT 0, ALLOW_CONNECTIONS false or revoke CONNECT on any
// of the run's databases (it owns them all). Each of those makes a later session of the run
// (the next script, a rerun, another variant, a snapshot) fail to connect, which used to end the
// run as an environment error with no report. The warden checks, on a superuser session of its
// own, that the run's role and databases are still as the run needs them; it puts back what
// changed and charges the change to the statement of user SQL that made it. [Database.Exec]
// then returns that as a [*ScriptError] whose Err is a [*SelfInflicted]: a finding at the
// statement, and the run goes on.
//
// When it checks: after each statement of user SQL whose command tag says it may have done it
// (ALTER ROLE, ALTER DATABASE, or a statement that runs code: DO, CALL, SELECT, EXECUTE), after
// each script (for code run by any other statement: a trigger, a default), and when a session of
// the run fails to connect for one of the reasons above (a change made by a script of another
// variant that is still running). A check after every statement would find the statement
// exactly, but doubles the round trips of an install; the command tags single out the
// statements that can change a role or a database directly (ALTER ROLE) or at all (a database's
// name is random, so only SQL built at run time reaches one), and a change found at the end of a
// script is charged to its last statement, with the range since the last check in the message.
// A change found while several scripts run is charged to the one whose last statement can have
// made it (by its tag), else to the one that checks.

// SelfInflicted is a failure user SQL caused to itself: what it did to the run's own role,
// databases or server while it ran, or the install time limit it ran past. It is the SQL's fault
// (a finding at the statement), not the environment's.
type SelfInflicted struct {
	// Msg says what happened, as a clause ("it changed the password of role postgres, ...").
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
	sc      *Script
	db      string // the database it runs in
	last    int    // index into sc.Statements of the last statement completed or failed (-1: none)
	lastTag string // its command tag ("" when it failed)
	seq     uint64 // orders the statements of all scripts by completion
	checked int    // sc.Statements[:checked] were covered by a check
	changes []charged
}

// charged is a change charged to a statement.
type charged struct {
	msg         string
	stmt, since int // the statement, and the first one since the check before
}

// warden watches the run's environment for changes user SQL makes to it (see above).
type warden struct {
	mu       sync.Mutex
	conn     *pgx.Conn // a superuser session of the maintenance database
	verifier string    // the install role's password verifier last seen to match the password
	active   map[*execution]struct{}
	seq      uint64 // statements completed
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
func (s *Server) unwatch(e *execution) *ScriptError {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
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

// ran records that statement i of e completed with tag (or failed: tag ""), under the warden's
// lock, and reports whether the warden should check now.
func (s *Server) ran(e *execution, i int, tag string) bool {
	s.w.mu.Lock()
	s.w.seq++
	e.last, e.lastTag, e.seq = i, tag, s.w.seq
	s.w.mu.Unlock()
	return suspect(tag)
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
// of the run's databases ($2) that stops a session from connecting: one row per finding (kind,
// database, role, detail). Every name is pg_catalog's (see the rule for privileged sessions).
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
 WHERE pg_catalog.split_part(c.c, '=', 1) OPERATOR(pg_catalog.=) ANY ('{local_preload_libraries,session_preload_libraries}'::pg_catalog.text[])
   AND ((a.rolname OPERATOR(pg_catalog.=) $1::pg_catalog.text
         AND (s.setdatabase OPERATOR(pg_catalog.=) '0'::pg_catalog.oid OR d.datname OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.name[])))
     OR (s.setrole OPERATOR(pg_catalog.=) '0'::pg_catalog.oid AND d.datname OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.name[])))`

// inspect reads what differs, on the warden's session (w.mu held), and says how to put it back.
func (s *Server) inspect(ctx context.Context) ([]problem, error) {
	if s.w.conn == nil || s.w.conn.IsClosed() {
		cfg := s.admin.Copy()
		cfg.RuntimeParams = map[string]string{"search_path": "pg_catalog", "application_name": "ledgercheck (warden)"}
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return nil, fault.Env(fmt.Errorf("connecting to check the run's role and databases: %s", serverMessage(err)))
		}
		s.w.conn = conn
	}
	s.mu.Lock()
	dbs := slices.Clone(s.created)
	s.mu.Unlock()
	rows, err := s.w.conn.Query(ctx, wardenQuery, s.installRole, dbs)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("checking the run's role and databases: %s", serverMessage(err)))
	}
	type row struct{ kind, db, role, detail string }
	found, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		return x, r.Scan(&x.kind, &x.db, &x.role, &x.detail)
	})
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
			p.msg += ", so no later session could start (a library that does not load ends every session)"
			out = append(out, p)
		}
	}
	return out, nil
}

// check looks for changes user SQL made to the run's role and databases, puts them back and
// charges each to a statement of a running script (see above); self is the script that asks
// (nil: a session that could not connect). It reports whether it put anything back.
func (s *Server) check(ctx context.Context, self *execution) (bool, error) {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
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
		e := s.culprit(self, p.role)
		if e == nil {
			fmt.Fprintf(s.opts.Log, "scratch: user SQL %s; put back, but no running script could have done it\n", strings.TrimPrefix(p.text(&execution{}), "it "))
			continue
		}
		since := min(e.checked, e.last)
		if fits(e.lastTag, p.role) {
			since = e.last // that statement did it
		}
		e.changes = append(e.changes, charged{msg: p.text(e), stmt: e.last, since: since})
	}
	// Whatever ran so far is covered.
	for e := range s.w.active {
		e.checked = e.last + 1
	}
	return len(found) > 0, nil
}

// culprit returns the running script a change of this kind (role: to the install role, else to
// a database) is charged to: the one whose last statement made it directly (ALTER ROLE); else
// self, when it ran a statement; else the one whose last statement ran code most recently; else
// nil (w.mu held). Two scripts of user SQL whose last statements both ran code are told apart by
// none of this: the change goes to self, which checked first.
func (s *Server) culprit(self *execution, role bool) *execution {
	var code *execution
	for e := range s.w.active {
		if e.last < 0 {
			continue
		}
		if fits(e.lastTag, role) {
			return e
		}
		if suspect(e.lastTag) && (code == nil || e.seq > code.seq) {
			code = e
		}
	}
	if self != nil && self.last >= 0 {
		return self
	}
	return code
}

// closeWarden closes the warden's session.
func (s *Server) closeWarden() {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
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
	if fixed, cerr := s.check(ctx, nil); cerr != nil || !fixed {
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
