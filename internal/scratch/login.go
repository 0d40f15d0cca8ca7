package scratch

import (
	"context"
	"fmt"
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
//     psql). The sentinel is asked after every statement whether it still stands; a statement
//     after which it does not ended it, and that is a finding at that statement
//     ([SessionEnding]). Scripts take turns with user SQL ([Server.userSQLTurn]), so the
//     statement that ran is the only one that can have ended the sentinel.

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
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return serverErrorf(err, "connecting")
	}
	defer conn.Close(context.WithoutCancel(ctx))
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

// userSQLTurn is held by one script at a time ([Database.Exec]), so that a sentinel ended while
// a statement ran was ended by that statement.
type userSQLTurn chan struct{}

// take waits for the turn, or for ctx.
func (t userSQLTurn) take(ctx context.Context) error {
	select {
	case t <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t userSQLTurn) give() { <-t }

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
type sentinel struct {
	conn *pgx.Conn
	pid  uint32
}

// openSentinel opens the sentinel of database db.
func (s *Server) openSentinel(ctx context.Context, db string) (*sentinel, error) {
	conn, err := pgx.ConnectConfig(ctx, s.installLogin(db))
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "connecting the sentinel session to %s", db))
	}
	return &sentinel{conn: conn, pid: conn.PgConn().PID()}, nil
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
