package scratch_test

// Server mode (--dsn): user SQL logs in as a role of the run's own, which cannot undo that with
// SET ROLE, make databases or grant itself roles; a run drops exactly what it can prove it
// created, and what a killed run left is recognised and dropped by the next run or by cleanup.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// freshDSNServer starts a --dsn stand-in server of the test's own (so that it can assert every
// role and database on it), with ledgercheck's guard preloaded unless plain.
func freshDSNServer(t *testing.T, plain bool) *scratchtest.DSNServer {
	t.Helper()
	scratchtest.NeedPostgres(t)
	opts := scratchtest.DSNServerOptions{Preload: "ledgercheck_guard"}
	if plain {
		opts.Preload = ""
	}
	s, err := scratchtest.StartDSNServer(opts)
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

// inventory lists the server's databases and roles (PostgreSQL's own pg_* roles aside).
func inventory(t *testing.T, conn *pgx.Conn) (dbs, roles []string) {
	t.Helper()
	for q, out := range map[string]*[]string{
		`SELECT datname FROM pg_database ORDER BY 1`:                      &dbs,
		`SELECT rolname FROM pg_roles WHERE rolname !~ '^pg_' ORDER BY 1`: &roles,
	} {
		rows, err := conn.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if *out, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			t.Fatal(err)
		}
	}
	return dbs, roles
}

func TestServerModeDropsExactlyWhatItCreated(t *testing.T) {
	srv := freshDSNServer(t, false)
	admin := srv.Conn(t)
	ctx := context.Background()
	dbsBefore, rolesBefore := inventory(t, admin)

	s, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN})
	if err != nil {
		t.Fatal(err)
	}
	db, err := s.NewDatabase(ctx, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(db.Name, scratch.NamePrefix) || db.Name == scratch.NamePrefix {
		t.Errorf("database %q lacks the %q prefix", db.Name, scratch.NamePrefix)
	}
	// A migration that creates a role (cluster-wide) and makes an API role a member of it, as the
	// shipped port does; and roles another client creates while the run goes on and ties to
	// what is theirs: one that owns a schema of theirs, one a superuser makes a member of a role
	// of theirs. (One another client would create and leave untouched cannot be told from one the
	// run's SQL made and detached from every tie, and would go with the run.)
	scratchtest.Exec(t, db, "role.sql", "CREATE ROLE lc_run_role NOLOGIN;\nGRANT lc_run_role TO service_role;\nCREATE TABLE public.t (id int);\nGRANT SELECT ON public.t TO lc_run_role;")
	if _, err := admin.Exec(ctx, `CREATE ROLE other_client_role NOLOGIN; CREATE SCHEMA other_client AUTHORIZATION other_client_role;
		CREATE ROLE other_client_group NOLOGIN; CREATE ROLE other_client_member NOLOGIN IN ROLE other_client_group`); err != nil {
		t.Fatal(err)
	}
	var user, session string
	if err := scratchtest.Connect(t, db).QueryRow(ctx, `SELECT current_user, session_user`).Scan(&user, &session); err != nil {
		t.Fatal(err)
	}
	if user != s.InstallRole() || session != db.Name || !strings.HasPrefix(user, scratch.NamePrefix) {
		t.Errorf("user SQL runs as %s (session %s), want the run's own role %s, logged in as its database's login role %s", user, session, s.InstallRole(), db.Name)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	dbsAfter, rolesAfter := inventory(t, admin)
	if !slices.Equal(dbsAfter, dbsBefore) {
		t.Errorf("databases before %v, after %v: a run must drop exactly what it created", dbsBefore, dbsAfter)
	}
	if want := append(slices.Clone(rolesBefore), "other_client_group", "other_client_member", "other_client_role"); !slices.Equal(rolesAfter, sorted(want)) {
		t.Errorf("roles before %v, after %v; want the run's roles (install role, API roles, lc_run_role) gone and other_client_role kept", rolesBefore, rolesAfter)
	}
}

func sorted(s []string) []string { slices.Sort(s); return s }

// The --dsn escapes of issue 18, as user SQL: none gains anything, and none leaves anything.
func TestServerModeUserSQLCannotEscape(t *testing.T) {
	for _, guard := range []bool{true, false} {
		t.Run(fmt.Sprintf("guard=%v", guard), func(t *testing.T) {
			t.Parallel() // most of each case's time is the lock wait below
			var srv *scratchtest.DSNServer
			if guard {
				srv = borrowTenantServer(t).srv // a guarded server another tenant uses too
			} else {
				srv = freshDSNServer(t, true)
			}
			admin := srv.Conn(t)
			ctx := context.Background()
			// Renaming the run's database waits for the run's warden, which holds the database
			// for the whole run, until the lock_timeout of user SQL refuses it: a second here,
			// not the default ten, is the same refusal sooner.
			s, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN, LockTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			db, err := s.NewEnvDatabase(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct{ name, sql string }{
				{"reset the role, then run a program", "SET ROLE NONE;\nRESET ROLE;\nCOPY (SELECT 1) TO PROGRAM 'id';"},
				{"session authorization", "SET SESSION AUTHORIZATION postgres;"},
				{"set role to the DSN's role", "SET ROLE postgres;"},
				{"grant a predefined role", "GRANT pg_execute_server_program TO current_user;"},
				{"grant one dynamically", "DO $$ BEGIN EXECUTE 'GRANT pg_execute_server_program TO ' || quote_ident(current_user); END $$;"},
				{"create a database", "CREATE DATABASE lc_evil;"},
				{"rename the run's database", fmt.Sprintf("DO $$ BEGIN EXECUTE 'ALTER DATABASE %s RENAME TO lc_hidden'; END $$;", db.Name)},
				{"make itself a superuser", "ALTER ROLE current_user SUPERUSER;"},
				{"alter an API role", "ALTER ROLE anon BYPASSRLS;"},
			} {
				err := sqlscript.ExecFile(ctx, db, "evil.sql", []byte(c.sql))
				var se *scratch.ScriptError
				if !errors.As(err, &se) || se.PgError() == nil {
					t.Errorf("%s: got %v, want the server to refuse it", c.name, err)
				}
			}
			// CREATE ROLE is the install role's only where the server keeps it safe: PostgreSQL 15
			// with the guard, or 16 and later (which have no guard and need none).
			err = sqlscript.ExecFile(ctx, db, "role.sql", []byte("CREATE ROLE lc_new NOLOGIN;"))
			var se *scratch.ScriptError
			safe := guard || s.Major() >= 16
			switch {
			case safe && err != nil:
				t.Errorf("on a PostgreSQL %d server (guard %v), CREATE ROLE: %v, want it allowed", s.Major(), guard, err)
			case !safe && (!errors.As(err, &se) || !strings.Contains(se.Message(), "PostgreSQL 15 --dsn server")):
				t.Errorf("without the guard, CREATE ROLE: %v, want a refusal whose hint says why", err)
			}
			dbs, _ := inventory(t, admin)
			for _, d := range []string{"lc_evil", "lc_hidden"} {
				if slices.Contains(dbs, d) {
					t.Errorf("database %s exists on the server", d)
				}
			}
			var member bool
			if err := admin.QueryRow(ctx, `SELECT pg_has_role($1, 'pg_execute_server_program', 'MEMBER')`, s.InstallRole()).Scan(&member); err != nil || member {
				t.Errorf("the install role is a member of pg_execute_server_program (%v)", err)
			}
		})
	}
}

// A killed run (its session gone, nothing dropped) is recognised by what it holds, whatever its
// databases are called, and dropped by cleanup, or by the next run when it starts; a live run is
// never touched, nor anything that is not a run's.
func TestCleanupDropsOnlyWhatDeadRunsLeft(t *testing.T) {
	srv := freshDSNServer(t, false)
	admin := srv.Conn(t)
	ctx := context.Background()
	for _, sql := range []string{
		`CREATE DATABASE ledgercheck_0123456789ab_1`,   // a look-alike owned by someone else
		`CREATE ROLE ledgercheck_aaaaaaaaaaaa NOLOGIN`, // a look-alike role without a mark
	} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	// killed starts a run, gives it a database (renamed by a superuser) and a role of its user
	// SQL, and ends it as SIGKILL would; it returns what the run left: those, its install role
	// and the API roles it created on the server.
	killed := func() []string {
		t.Helper()
		_, before := inventory(t, admin)
		var created []string // the Supabase API roles the run creates, dropped with it
		for _, r := range slices.Sorted(slices.Values(scratch.APIRoles)) {
			if !slices.Contains(before, r) {
				created = append(created, "role "+r)
			}
		}
		run, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN})
		if err != nil {
			t.Fatal(err)
		}
		db, err := run.NewEnvDatabase(ctx)
		if err != nil {
			t.Fatal(err)
		}
		role := "lc_role_" + run.InstallRole()[len(scratch.NamePrefix):]
		scratchtest.Exec(t, db, "role.sql", "CREATE ROLE "+role+" NOLOGIN;")
		run.Abandon()
		// Renamed once the run is dead: while it runs, its warden holds its databases' rows.
		renamed := "renamed_" + db.Name
		if _, err := admin.Exec(ctx, fmt.Sprintf(`ALTER DATABASE %s RENAME TO %s`, db.Name, renamed)); err != nil {
			t.Fatal(err)
		}
		// The run's digest reader, observer and its database's login role are dropped with the
		// API roles it created, in name order.
		created = append(created, "role "+run.InstallRole()+"_observer", "role "+run.InstallRole()+"_reader", "role "+db.Name)
		slices.Sort(created)
		return append([]string{renamed, "role " + role, "role " + run.InstallRole()}, created...)
	}

	left := killed()
	if _, err := scratch.Cleanup(ctx, srv.DSN, -time.Second); fault.KindOf(err) != fault.KindInput {
		t.Errorf("--older-than -1s: got %v, want an input error", err)
	}
	if dropped, err := scratch.Cleanup(ctx, srv.DSN, time.Hour); err != nil || len(dropped) > 0 {
		t.Errorf("cleanup --older-than 1h dropped %v (%v), want nothing: the run started just now", dropped, err)
	}
	dropped, err := scratch.Cleanup(ctx, srv.DSN, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dropped, left) {
		t.Errorf("cleanup dropped %v, want %v", dropped, left)
	}

	left = killed()
	live, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN}) // drops what the killed run left
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	liveDB, err := live.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if dropped, err := scratch.Cleanup(ctx, srv.DSN, 0); err != nil || len(dropped) > 0 {
		t.Errorf("cleanup during a live run dropped %v (%v), want nothing", dropped, err)
	}
	dbs, roles := inventory(t, admin)
	for _, keep := range []string{liveDB.Name, "ledgercheck_0123456789ab_1"} {
		if !slices.Contains(dbs, keep) {
			t.Errorf("database %s was dropped", keep)
		}
	}
	for _, keep := range []string{live.InstallRole(), "ledgercheck_aaaaaaaaaaaa", "anon", "service_role"} {
		if !slices.Contains(roles, keep) {
			t.Errorf("role %s was dropped", keep)
		}
	}
	for _, gone := range left {
		name := strings.TrimPrefix(gone, "role ")
		if slices.Contains(scratch.APIRoles, name) {
			continue // the live run created them anew
		}
		if slices.Contains(dbs, name) || slices.Contains(roles, name) {
			t.Errorf("%s, left by a killed run, is still there after the next run started", gone)
		}
	}
}

// Runs on one server take turns: a second run starts once the first has closed, so that what one
// run's migrations do to cluster-wide roles cannot change the other's verdict.
func TestServerModeRunsTakeTurns(t *testing.T) {
	srv := scratchtest.SharedDSNServer(t)
	ctx := context.Background()
	first, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []string
	note := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
	done := make(chan error)
	go func() {
		second, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN})
		note("second started")
		if err == nil {
			err = second.Close()
		}
		done <- err
	}()
	// Give the second run every chance to start early: wait until it waits for the lock.
	waitForLockWaiter(t, srv)
	note("first closing")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(events, []string{"first closing", "second started"}) {
		t.Errorf("events %v: the second run started before the first ended", events)
	}
}

// waitForLockWaiter waits (a bounded number of looks) until some session waits for an advisory
// lock on the server.
func waitForLockWaiter(t *testing.T, srv *scratchtest.DSNServer) {
	t.Helper()
	conn := srv.Conn(t)
	for i := 0; ; i++ {
		var n int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if i == 1000 {
			t.Fatal("the second run never waited for the first")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServerModeErrors(t *testing.T) {
	srv := scratchtest.SharedDSNServer(t)
	admin := srv.Conn(t)
	ctx := context.Background()
	_, err := scratch.Start(ctx, scratch.Options{DSN: "host=" + srv.Dir + "/nonexistent port=1 user=x dbname=postgres connect_timeout=2"})
	if fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), "cannot connect") {
		t.Errorf("unreachable DSN: got %v, want an environment error", err)
	}
	// What the DSN's role needs is a superuser; a role with CREATEDB and CREATEROLE is not enough.
	if _, err := admin.Exec(ctx, `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lc_almost') THEN CREATE ROLE lc_almost LOGIN CREATEDB CREATEROLE; END IF; END $$`); err != nil {
		t.Fatal(err)
	}
	_, err = scratch.Start(ctx, scratch.Options{DSN: strings.Replace(srv.DSN, "user=postgres", "user=lc_almost", 1)})
	if fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), "is not a superuser") {
		t.Errorf("a CREATEDB CREATEROLE role: got %v, want an environment error saying a superuser is needed", err)
	}
}
