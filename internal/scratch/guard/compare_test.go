package guard_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// The guard refuses exactly what PostgreSQL 16 refuses: every statement below runs on a
// PostgreSQL 15 server with the guard and on a PostgreSQL 17 server, as each of two creators (the
// shapes of ledgercheck's install role: embedded, CREATEDB; --dsn, NOCREATEDB), from the same
// state, and both servers must accept it or both refuse it, and leave the creator's ADMIN OPTION
// on the role it created as each other. The list is every role statement a CREATEROLE user can
// write, over every kind of target: a role it created, another's, itself, a superuser, a
// predefined role, with every attribute.

// creators are the roles that run the statements: postgres is the embedded install role's shape
// (as on Supabase), maker the --dsn install role's.
var creators = []string{"postgres", "maker"}

// attributes are every role attribute, set and cleared.
var attributes = []string{
	"SUPERUSER", "NOSUPERUSER", "CREATEDB", "NOCREATEDB", "CREATEROLE", "NOCREATEROLE",
	"REPLICATION", "NOREPLICATION", "BYPASSRLS", "NOBYPASSRLS", "LOGIN", "NOLOGIN",
	"INHERIT", "NOINHERIT", "CONNECTION LIMIT 5", "VALID UNTIL 'infinity'", "PASSWORD 'chosen'", "PASSWORD NULL",
}

// comparedStatements returns the statements; {me} is the creator, mine a role it created in the
// same transaction, theirs a role a superuser created, su a superuser.
func comparedStatements() []string {
	var out []string
	for _, target := range []string{"mine", "theirs", "{me}", "su", "pg_read_all_data"} {
		for _, a := range attributes {
			out = append(out, "ALTER ROLE "+target+" "+a)
		}
		out = append(out,
			"ALTER ROLE "+target+" SET work_mem = '1MB'",
			"ALTER ROLE "+target+" IN DATABASE postgres SET work_mem = '1MB'",
			"ALTER ROLE "+target+" RESET ALL",
			"ALTER ROLE "+target+" RENAME TO renamed",
			"COMMENT ON ROLE "+target+" IS 'x'",
			"GRANT "+target+" TO {me}",
			"GRANT "+target+" TO theirs",
			"GRANT "+target+" TO mine WITH ADMIN OPTION",
			"REVOKE "+target+" FROM {me}",
			"REVOKE ADMIN OPTION FOR "+target+" FROM {me}",
			"REVOKE "+target+" FROM service_role",
			"ALTER GROUP "+target+" ADD USER theirs",
			"ALTER GROUP "+target+" DROP USER {me}",
			"DROP ROLE "+target,
		)
	}
	for _, a := range attributes {
		out = append(out, "CREATE ROLE fresh "+a)
	}
	out = append(out,
		"CREATE ROLE fresh IN ROLE mine", "CREATE ROLE fresh IN ROLE theirs", "CREATE ROLE fresh IN ROLE pg_execute_server_program",
		"CREATE ROLE fresh IN GROUP service_role", "CREATE ROLE fresh ROLE theirs", "CREATE ROLE fresh ADMIN theirs", "CREATE ROLE fresh USER {me}",
		"CREATE ROLE fresh CREATEDB CREATEROLE LOGIN",
		"GRANT pg_execute_server_program TO {me}", "GRANT pg_write_server_files TO mine",
		"GRANT service_role TO mine", "GRANT mine TO service_role",
		"DO $$ BEGIN EXECUTE 'ALTER ROLE mine CREATEDB'; END $$",
		"DO $$ BEGIN EXECUTE 'REVOKE mine FROM ' || quote_ident(current_user); END $$",
		"REVOKE mine, theirs FROM {me}",
		"REVOKE mine FROM {me}, service_role",
	)
	return out
}

// stricterOn15 are the statements that PostgreSQL 15's own core refuses and 16 accepts: the
// guard only ever refuses more than the core, so it cannot allow them. Each is allowed to be
// refused on 15 only (never the other way round).
var stricterOn15 = map[string]string{
	"ALTER ROLE mine BYPASSRLS":   "15: must be superuser to change bypassrls attribute",
	"ALTER ROLE mine NOBYPASSRLS": "15: must be superuser to change bypassrls attribute",
	"CREATE ROLE fresh BYPASSRLS": "15: must be superuser to create bypassrls users",
}

// comparedServer starts a server from bin (the guard preloaded on 15) with the Supabase roles,
// the two creators, theirs and su.
func comparedServer(t *testing.T, bin string) *scratchtest.DSNServer {
	t.Helper()
	srv, err := scratchtest.StartDSNServer(scratchtest.DSNServerOptions{Superuser: superuser, PGBin: bin, Preload: "ledgercheck_guard"})
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	t.Cleanup(func() { srv.Stop() })
	conn, err := pgx.Connect(context.Background(), srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, sql := range []string{scratch.RolesScript().SQL, `
		CREATE ROLE postgres LOGIN NOSUPERUSER CREATEDB CREATEROLE BYPASSRLS IN ROLE anon, authenticated, service_role;
		CREATE ROLE maker LOGIN NOSUPERUSER NOCREATEDB CREATEROLE BYPASSRLS IN ROLE anon, authenticated, service_role;
		CREATE ROLE theirs NOLOGIN;
		CREATE ROLE su SUPERUSER NOLOGIN`} {
		if _, err := conn.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
	return srv
}

// outcome runs stmt as creator on srv, after the creator created mine in the same transaction,
// and returns "accepted" or "refused: <message>", with the creator's ADMIN OPTION on mine after
// it. The transaction is rolled back: every statement starts from the same state.
func outcome(t *testing.T, srv *scratchtest.DSNServer, creator, stmt string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, strings.Replace(srv.DSN, "user="+superuser, "user="+creator, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "CREATE ROLE mine NOLOGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SAVEPOINT s"); err != nil {
		t.Fatal(err)
	}
	res := "accepted"
	if _, err := tx.Exec(ctx, strings.ReplaceAll(stmt, "{me}", creator)); err != nil {
		res = "refused: " + err.Error()
		if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT s"); err != nil {
			t.Fatal(err)
		}
	}
	var admin bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
		WHERE r.rolname = 'mine' AND m.member = (SELECT oid FROM pg_roles WHERE rolname = current_user) AND m.admin_option)`).Scan(&admin); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s; admin of mine: %v", res, admin)
}

func TestGuardRefusesExactlyWhat16Refuses(t *testing.T) {
	// `make test` runs before PostgreSQL 17 is set up, and whether a machine has it then is
	// chance (scripts' TestSetupPG17IsIdempotent installs it as root during make test);
	// `make test-pg17` (LEDGERCHECK_PG=17) runs after, with 15 still installed: there this test
	// runs, and must.
	if os.Getenv("LEDGERCHECK_PG") != "17" {
		t.Skip("`make test-pg17` (LEDGERCHECK_PG=17) runs this comparison")
	}
	bin17, err := scratch.FindBinDir("", 17)
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	if _, err := os.Stat(pgBin + "/postgres"); err != nil {
		scratchtest.Unavailable(t, fmt.Errorf("no PostgreSQL 15 server (%v): run `make setup` as root", err))
	}
	on15, on17 := comparedServer(t, pgBin), comparedServer(t, bin17)
	used := map[string]bool{}
	var accepted, refused int
	for _, creator := range creators {
		for _, stmt := range comparedStatements() {
			a, b := outcome(t, on15, creator, stmt), outcome(t, on17, creator, stmt)
			if strings.HasPrefix(b, "accepted") {
				accepted++
			} else {
				refused++
			}
			if strings.HasPrefix(a, "accepted") == strings.HasPrefix(b, "accepted") && strings.HasSuffix(a, b[strings.LastIndex(b, ";"):]) {
				continue
			}
			if _, ok := stricterOn15[stmt]; ok && strings.HasPrefix(b, "accepted") && !strings.HasPrefix(a, "accepted") {
				used[stmt] = true
				continue
			}
			t.Errorf("as %s: %s\n  15 with the guard: %s\n  17:                %s", creator, stmt, a, b)
		}
	}
	for stmt := range stricterOn15 {
		if !used[stmt] {
			t.Errorf("stricterOn15 lists %q, which both servers now treat alike: remove it", stmt)
		}
	}
	// A list both servers accept whole, or refuse whole, would compare nothing.
	if accepted < 50 || refused < 50 {
		t.Errorf("17 accepted %d statements and refused %d: the list must exercise both", accepted, refused)
	}
	t.Logf("%d statements compared per server (17 accepted %d, refused %d)", accepted+refused, accepted, refused)
}
