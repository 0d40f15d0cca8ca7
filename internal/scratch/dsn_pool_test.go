package scratch_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// tenantServer is a --dsn stand-in server holding the tenant's state (tenantSetup), lent to one
// test at a time, with a superuser session on it and the state it was lent in.
type tenantServer struct {
	srv   *scratchtest.DSNServer
	admin *pgx.Conn
	// before is its serverState, whole its wholeState, as every borrower finds it.
	before, whole []string
}

// tenantServers are the package's idle tenant servers. The tests that attack a --dsn server
// through a tenant's state used to start one server each per case, dozens in all (a copy of
// initdb's directory, a server start and the tenant's setup, about a second of CPU each); a
// server now goes back to the pool when the test that borrowed it ends with it as it was lent
// (wholeState, compared by the pool itself), and is stopped otherwise, so that no test ever sees
// what another left. As many are started as tests borrow at once (go test -parallel).
var tenantServers struct {
	mu   sync.Mutex
	idle []*tenantServer
}

// borrowTenantServer lends t a tenant server, an idle one or a new one, for the rest of t: when
// t ends, the server goes back to the pool if t passed and the server is in the state it was lent
// in, and is stopped otherwise. Every server allows prepared transactions
// (max_prepared_transactions=4), which the attacks that leave one need: a server where PREPARE
// TRANSACTION works is the harder case for every other attack too.
func borrowTenantServer(t *testing.T) *tenantServer {
	t.Helper()
	scratchtest.NeedPostgres(t)
	tenantServers.mu.Lock()
	var s *tenantServer
	if n := len(tenantServers.idle); n > 0 {
		s, tenantServers.idle = tenantServers.idle[n-1], tenantServers.idle[:n-1]
	}
	tenantServers.mu.Unlock()
	if s == nil {
		var err error
		if s, err = startTenantServer(); err != nil {
			if s != nil {
				s.stop()
			}
			scratchtest.Unavailable(t, err)
		}
	}
	t.Cleanup(func() { giveBack(t, s) })
	return s
}

// giveBack returns s to the pool when t passed and s is as it was lent, and stops it otherwise.
func giveBack(t *testing.T, s *tenantServer) {
	if !t.Failed() && !s.admin.IsClosed() {
		if whole, err := wholeStateOf(s.admin); err == nil && slices.Equal(whole, s.whole) {
			tenantServers.mu.Lock()
			tenantServers.idle = append(tenantServers.idle, s)
			tenantServers.mu.Unlock()
			return
		}
	}
	s.stop()
}

// startTenantServer starts a server with the Supabase API roles and the tenant's state.
func startTenantServer() (*tenantServer, error) {
	srv, err := scratchtest.StartDSNServer(scratchtest.DSNServerOptions{Preload: "ledgercheck_guard",
		Settings: []string{"max_prepared_transactions=4"}})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	s := &tenantServer{srv: srv}
	if s.admin, err = pgx.Connect(ctx, srv.DSN); err != nil {
		return s, err
	}
	if _, err := s.admin.Exec(ctx, scratch.RolesScript().SQL); err != nil {
		return s, err
	}
	for _, sql := range strings.Split(tenantSetup, ";\n") {
		if _, err := s.admin.Exec(ctx, sql); err != nil {
			return s, err
		}
	}
	if s.before, err = serverStateOf(s.admin); err != nil {
		return s, err
	}
	s.whole, err = wholeStateOf(s.admin)
	return s, err
}

// stop closes s's session and stops its server.
func (s *tenantServer) stop() {
	if s.admin != nil {
		s.admin.Close(context.Background())
	}
	s.srv.Stop()
}

// stopTenantServers stops the idle tenant servers after the package's tests (TestMain), and
// returns code.
func stopTenantServers(code int) int {
	tenantServers.mu.Lock()
	defer tenantServers.mu.Unlock()
	for _, s := range tenantServers.idle {
		s.stop()
	}
	tenantServers.idle = nil
	return code
}

// wholeStateQuery is what a server shared by several cases must hold again after each, beyond
// serverState: memberships with their ADMIN OPTION, role and database settings, comments on
// shared objects (the runs' marks), tablespaces and prepared transactions.
const wholeStateQuery = `
	SELECT 'member ' || m.rolname || ' of ' || r.rolname || ' admin ' || a.admin_option
	FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid JOIN pg_roles m ON m.oid = a.member
	UNION ALL
	SELECT 'setting ' || coalesce(d.datname, '*') || ' ' || coalesce(r.rolname, '*') || ' ' || s.setconfig::text
	FROM pg_db_role_setting s LEFT JOIN pg_database d ON d.oid = s.setdatabase LEFT JOIN pg_roles r ON r.oid = s.setrole
	UNION ALL
	SELECT 'comment ' || s.classoid::regclass::text || ' ' || s.objoid || ' ' || s.description FROM pg_shdescription s
	UNION ALL
	SELECT 'tablespace ' || t.spcname || ' owner ' || r.rolname FROM pg_tablespace t JOIN pg_roles r ON r.oid = t.spcowner
	UNION ALL
	SELECT 'prepared ' || p.gid || ' in ' || p.database FROM pg_prepared_xacts p
	ORDER BY 1`

// wholeState is serverState and wholeStateQuery's lines.
func wholeState(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	out, err := wholeStateOf(conn)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func wholeStateOf(conn *pgx.Conn) ([]string, error) {
	out, err := serverStateOf(conn)
	if err != nil {
		return nil, err
	}
	rows, err := conn.Query(context.Background(), wholeStateQuery)
	if err != nil {
		return nil, err
	}
	more, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return append(out, more...), err
}
