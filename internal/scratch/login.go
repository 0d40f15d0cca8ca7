package scratch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// Who may end whose session. pg_terminate_backend and pg_cancel_backend let a role end any
// session whose login role it has the privileges of: user SQL, running as the install role, can
// end every session that logged in as the install role. So no session of the run logs in as the
// install role, except the sentinel below:
//
//   - every database of the run has a login role of its own, named as the database, a member of
//     the install role and nothing else, created with it ([Server.createLogin]); user SQL in
//     that database (and ledgercheck's sessions that act as the install role there: the
//     prerequisites, probes, generated rows) logs in as it and starts as the install role
//     (the startup parameter role), so current_user is the install role as on Supabase while
//     the session belongs to a role the install role is not a member of. A variant's SQL
//     cannot end another variant's sessions, nor ledgercheck's (the superuser's, the reader's
//     and the observer's it never could);
//   - while a script runs ([Database.Exec]), a sentinel session logged in as the install role
//     itself waits, idle, in the same database: on Supabase every client of the project's
//     database that logs in as postgres is such a session (the dashboard, a pooler, a person's
//     psql). A database's scripts share it ([sentinels]): it stands from the first of them on.
//     The sentinel is asked after every statement whether it still stands; a statement
//     after which it does not ended it, and that is a finding at that statement
//     ([SessionEnding]). A script runs alone ([userCode]), so the statement that ran is the
//     only code of any migration that can have ended the sentinel.

// loginAttrs are the attributes of a database's login role: it logs in, and holds nothing but
// its membership in the install role (attributes are not inherited; BYPASSRLS and CREATEROLE
// come with SET ROLE, which every session of it starts with).
const loginAttrs = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT"

// logins is what the server knows of its databases' login roles.
type logins struct {
	once     sync.Once
	verifier string // passwordSQL's literal of installPass, which every login role shares
	err      error
	mu       sync.Mutex
	names    []string // the login roles created, in order
}

// createLogin creates the login role of database name on conn (a superuser session).
func (s *Server) createLogin(ctx context.Context, conn *pgx.Conn, name string) error {
	s.lg.once.Do(func() {
		var pw []string
		if pw, s.lg.err = passwordSQL(s.installPass); s.lg.err == nil {
			s.lg.verifier = pw[0]
		}
	})
	if s.lg.err != nil {
		return fault.Env(s.lg.err)
	}
	sql := fmt.Sprintf("CREATE ROLE %s %s PASSWORD %s IN ROLE %s;\n", ident(name), loginAttrs, s.lg.verifier, ident(s.installRole))
	if s.cl == nil {
		sql += "COMMENT ON ROLE " + ident(name) + " IS " + quoteLiteral(s.mark()) + ";\n"
	}
	s.lg.mu.Lock()
	s.lg.names = append(s.lg.names, name)
	s.lg.mu.Unlock()
	// One transaction: on a --dsn server, a role of this run exists only with its mark.
	if _, err := conn.Exec(ctx, "BEGIN;\n"+sql+"COMMIT;"); err != nil {
		return fault.Env(serverErrorf(err, "creating the login role of %s", name))
	}
	return nil
}

// loginNames returns the login roles created so far.
func (s *Server) loginNames() []string {
	s.lg.mu.Lock()
	defer s.lg.mu.Unlock()
	return append([]string(nil), s.lg.names...)
}

// isLoginName reports whether name is the login role of a database of run id.
func isLoginName(id, name string) bool {
	rest, ok := strings.CutPrefix(name, NamePrefix+id+"_")
	return ok && rest != "reader" && rest != "observer"
}

// dropLoginsNow drops the login roles created so far, before the cluster is cached (the warden
// let go of them): the cached templates are copied, never logged into, and a later run's
// databases have roles of their own.
func (s *Server) dropLoginsNow(ctx context.Context) error {
	names := s.loginNames()
	if len(names) == 0 {
		return nil
	}
	conn, giveBack, err := s.adminSession(ctx)
	if err != nil {
		return serverErrorf(err, "connecting")
	}
	defer giveBack()
	idents := make([]string, len(names))
	for i, n := range names {
		idents[i] = ident(n)
	}
	if _, err := conn.Exec(ctx, "DROP ROLE IF EXISTS "+strings.Join(idents, ", ")); err != nil {
		return serverErrorf(err, "dropping the templates' login roles")
	}
	s.lg.mu.Lock()
	s.lg.names = nil
	s.lg.mu.Unlock()
	return nil
}

// userCode keeps the scripts apart from every other session where the migration's code can run:
// a script ([Database.Exec]) runs alone, and while it runs no session of the install role
// ([Database.Connect]: probes, generated rows, the bodies check) or of the observer
// ([Database.ConnectObserver]: the personas' requests, where a SECURITY DEFINER function of the
// migration runs as postgres) is open; those open as they like between scripts, side by side.
// So a sentinel ended while a statement ran was ended by that statement, and by no trigger or
// function of any variant that something else happened to call meanwhile. A session holds its
// share from its opening to its close (pgconn's CleanupDone), so that no code of the migration
// runs on it while a script does, whatever it sends and however it is called.
type userCode struct {
	mu       sync.Mutex
	sessions int           // open sessions of user code outside scripts
	script   bool          // a script runs
	changed  chan struct{} // closed, and replaced, at every release
}

// wait blocks until ready (called with mu held) or ctx ends; it returns with mu held on success.
func (u *userCode) wait(ctx context.Context, ready func() bool) error {
	u.mu.Lock()
	for !ready() {
		if u.changed == nil {
			u.changed = make(chan struct{})
		}
		ch := u.changed
		u.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		u.mu.Lock()
	}
	return nil
}

// release changes the state under mu and wakes the waiters.
func (u *userCode) release(change func()) {
	u.mu.Lock()
	change()
	if u.changed != nil {
		close(u.changed)
		u.changed = nil
	}
	u.mu.Unlock()
}

// runScript waits until no script runs and no session of user code is open, and takes the
// server for a script; done gives it back.
func (u *userCode) runScript(ctx context.Context) (done func(), err error) {
	if err := u.wait(ctx, func() bool { return !u.script && u.sessions == 0 }); err != nil {
		return nil, err
	}
	u.script = true
	u.mu.Unlock()
	return func() { u.release(func() { u.script = false }) }, nil
}

// openSession waits until no script runs and counts a session of user code open from before it
// connects (no script starts in between) until it is closed (pgconn's CleanupDone, which Close
// and a broken connection both close).
func (u *userCode) openSession(ctx context.Context, connect func() (*pgx.Conn, error)) (*pgx.Conn, error) {
	if err := u.wait(ctx, func() bool { return !u.script }); err != nil {
		return nil, err
	}
	u.sessions++
	u.mu.Unlock()
	conn, err := connect()
	if err != nil {
		u.release(func() { u.sessions-- })
		return nil, err
	}
	go func() {
		var perr error
		defer fault.Recover(&perr)
		<-conn.PgConn().CleanupDone()
		u.release(func() { u.sessions-- })
	}()
	return conn, nil
}

// installLogin is the configuration of a session that logs in as the install role itself in
// database db: a sentinel, idle, as another client of the project's database would be, or the
// person's of `env up` ([Database.URI]).
func (s *Server) installLogin(db string) *pgx.ConnConfig {
	cfg := s.admin.Copy()
	cfg.Database = db
	cfg.User, cfg.Password = s.installRole, s.installPass
	cfg.RuntimeParams = map[string]string{"application_name": "psql"}
	return cfg
}

// sentinel is a session of the install role that a script must leave standing.
type sentinel struct{ conn *pgx.Conn }

// keptSentinelsMax bounds the sentinels kept between scripts (one per database that ran one):
// each is a session of the server's max_connections, and a repository's run has many databases.
const keptSentinelsMax = 8

// sentinels are the sentinels kept between the scripts of their database: a database's scripts
// (the install, the fixture, the reruns) share one, as the other clients of a project's
// database stay connected across its migrations, instead of a session opened for each (about
// 4 ms of CPU). One that something ended between scripts (a probe, a persona's request, another
// database's script) is replaced, unblamed, before the next script starts. A database's is closed
// before the database is copied (CREATE DATABASE ... TEMPLATE refuses a source with sessions) or
// dropped, and all as the run ends.
type sentinels struct {
	mu     sync.Mutex
	kept   map[string]*sentinel
	closed bool // the run is ending: none is kept (closeKept)
}

// sentinelFor returns the sentinel of database db for a script: the one kept since its last
// script if it still stands, else a new one.
func (s *Server) sentinelFor(ctx context.Context, db string) (*sentinel, error) {
	s.sn.mu.Lock()
	st := s.sn.kept[db]
	delete(s.sn.kept, db)
	s.sn.mu.Unlock()
	if st != nil {
		if st.standing(ctx) {
			return st, nil
		}
		st.close()
	}
	return s.openSentinel(ctx, db)
}

// keepSentinel keeps st, which a script of database db left standing, for db's next script.
func (s *Server) keepSentinel(db string, st *sentinel) {
	s.sn.mu.Lock()
	if st.conn.IsClosed() || len(s.sn.kept) >= keptSentinelsMax || s.sn.closed {
		s.sn.mu.Unlock()
		st.close()
		return
	}
	if s.sn.kept == nil {
		s.sn.kept = map[string]*sentinel{}
	}
	s.sn.kept[db] = st
	s.sn.mu.Unlock()
}

// closeSentinels closes the kept sentinel of each database of dbs or, when dbs is empty, every
// kept one.
func (s *Server) closeSentinels(dbs ...string) {
	s.sn.mu.Lock()
	var closing []*sentinel
	for db, st := range s.sn.kept {
		if len(dbs) == 0 || slices.Contains(dbs, db) {
			closing = append(closing, st)
			delete(s.sn.kept, db)
		}
	}
	s.sn.mu.Unlock()
	for _, st := range closing {
		st.close()
	}
}

// openSentinel opens the sentinel of database db.
func (s *Server) openSentinel(ctx context.Context, db string) (*sentinel, error) {
	conn, err := pgx.ConnectConfig(ctx, s.installLogin(db))
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "connecting the sentinel session to %s", db))
	}
	return &sentinel{conn: conn}, nil
}

// standing reports whether the sentinel's session still stands: it answers an empty query. A
// session that another ended (pg_terminate_backend) has been signalled before the statement that
// ended it returned, and answers no more.
func (st *sentinel) standing(ctx context.Context) bool {
	return st.conn.PgConn().Exec(ctx, "").Close() == nil
}

func (st *sentinel) close() { st.conn.Close(context.Background()) }

// SessionEnding is the message of a [*SelfInflicted] for a statement that ended the sentinel.
const SessionEnding = "it ended a session of postgres it did not open (pg_terminate_backend): on Supabase that session is another client's, the dashboard's, a pooler's or a person's, whom this statement would disconnect"
