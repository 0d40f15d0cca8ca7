package scratch

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The observer is the login role of the access observation (internal/observe): it logs in the
// way the Data API's login role (Supabase's authenticator, PostgREST's) does, and acts as anon
// and as signed-in users by switching role per transaction (SET LOCAL ROLE) and setting the
// request settings PostgREST sets. Like the authenticator it is NOINHERIT, a member of anon,
// authenticated and service_role, and holds no privilege of its own: a function of the
// migration's that runs RESET ROLE inside a request lands on a role that can do nothing, and
// one that runs SET ROLE service_role gets what it would get in production. It is never a
// superuser, does not bypass row level security, is not administered by the install role (user
// SQL can neither change it nor grant it to itself), and is a role of the run's own:
// ledgercheck_observer in the embedded cluster, ledgercheck_<run id>_observer on a --dsn
// server, marked, dropped with the run and by `ledgercheck cleanup` like the reader.

// observerName is the name of the observer role of run id on a --dsn server.
func observerName(id string) string { return NamePrefix + id + "_observer" }

// observerSQL creates the observer role (in createRoles' transaction) with the password literal
// pw (passwordSQL's verifier of observerPass).
func (s *Server) observerSQL(pw string) string {
	return fmt.Sprintf("CREATE ROLE %s LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT PASSWORD %s IN ROLE anon, authenticated, service_role;\n",
		ident(s.observerRole), pw)
}

// ObserverRole returns the name of the observer role (see [Database.ConnectObserver]).
func (d *Database) ObserverRole() string { return d.srv.observerRole }

// ConnectObserver opens a connection as the observer role: the Data API's way in, for the access
// observation. The session starts with search_path pg_catalog, role none and no statement
// timeout, as a privileged session does (startup parameters outrank what the migration set on
// its database or on the API roles), though it has no privilege: whatever the migration's SQL
// does inside a request runs as the request's role, or as this role, which can do nothing.
func (d *Database) ConnectObserver(ctx context.Context) (*pgx.Conn, error) {
	cfg := d.srv.admin.Copy()
	cfg.Database = d.Name
	cfg.User, cfg.Password = d.srv.observerRole, d.srv.observerPass
	cfg.RuntimeParams["application_name"] = "ledgercheck (observer)"
	// The migration's SECURITY DEFINER functions run on it as their owner: user code (login.go).
	return d.srv.uc.openSession(ctx, func() (*pgx.Conn, error) { return d.connect(ctx, cfg, " as the observer") })
}
