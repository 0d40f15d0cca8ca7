package scratch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

func TestMain(m *testing.M) {
	if os.Getenv(plantHelperEnv) != "" {
		os.Exit(plantHelper())
	}
	code := stopTenantServers(scratchtest.Main(m))
	removeSharedBuild() // cache_shared_test.go
	os.Exit(code)
}

func TestEnvironmentRolesAndAuth(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1536)
	conn := scratchtest.Connect(t, db)
	ctx := context.Background()

	var user string
	var super, bypass bool
	if err := conn.QueryRow(ctx, `SELECT current_user, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user`).Scan(&user, &super, &bypass); err != nil {
		t.Fatal(err)
	}
	if scratchtest.Server(t).Embedded() && (user != "postgres" || super || !bypass) {
		t.Errorf("install role = %s super=%v bypassrls=%v, want postgres, not superuser, BYPASSRLS", user, super, bypass)
	}
	var svcBypass bool
	if err := conn.QueryRow(ctx, `SELECT rolbypassrls FROM pg_roles WHERE rolname = 'service_role'`).Scan(&svcBypass); err != nil || !svcBypass {
		t.Errorf("service_role BYPASSRLS = %v (%v), want true", svcBypass, err)
	}
	var extSchema string
	if err := conn.QueryRow(ctx, `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`).Scan(&extSchema); err != nil || extSchema != "extensions" {
		t.Errorf("vector in schema %q (%v), want extensions", extSchema, err)
	}
	// auth.role() and auth.uid() read request.jwt.claims, the setting PostgREST sets.
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT set_config('request.jwt.claims', '{"role":"service_role","sub":"8d0f2b8e-2a8b-4d59-9f5e-1f0c2f0b9a11"}', true)`); err != nil {
		t.Fatal(err)
	}
	var role, uid string
	if err := tx.QueryRow(ctx, `SELECT auth.role(), auth.uid()::text`).Scan(&role, &uid); err != nil {
		t.Fatal(err)
	}
	if role != "service_role" || uid != "8d0f2b8e-2a8b-4d59-9f5e-1f0c2f0b9a11" {
		t.Errorf("auth.role() = %q, auth.uid() = %q", role, uid)
	}
	// Unqualified vector resolves through the install role's search_path.
	if _, err := conn.Exec(ctx, `SELECT '[1,2,3]'::vector(3)`); err != nil {
		t.Errorf("vector not on the search_path: %v", err)
	}
}

func TestUntrustedOperationsFailForInstallRole(t *testing.T) {
	if !scratchtest.Server(t).Embedded() {
		t.Skip("the install role is the DSN's role in server mode")
	}
	db := scratchtest.NewDatabase(t, 1024)
	for _, sql := range []string{
		`COPY (SELECT 1) TO PROGRAM 'true'`,
		`SELECT pg_read_file('/etc/passwd')`,
		`ALTER SYSTEM SET work_mem = '1GB'`,
		`CREATE EXTENSION IF NOT EXISTS plperlu`,
	} {
		err := sqlscript.ExecFile(context.Background(), db, "evil.sql", []byte(sql))
		var se *scratch.ScriptError
		if !errors.As(err, &se) || se.PgError() == nil {
			t.Errorf("%s: got %v, want a server error", sql, err)
		}
	}
}

func TestExecFileReportsFailingStatementPosition(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1536)
	src := "CREATE TABLE public.a (id int);\n\n-- comment\n  SELECT nosuchcolumn\n    FROM public.a;\n"
	err := sqlscript.ExecFile(context.Background(), db, "m.sql", []byte(src))
	var se *scratch.ScriptError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want *ScriptError", err)
	}
	if se.Stmt != 1 || se.Pos.String() != "m.sql:4:10" {
		t.Errorf("failure at stmt %d %s, want stmt 1 at m.sql:4:10 (the column reference)", se.Stmt, se.Pos)
	}
	if pe := se.PgError(); pe == nil || pe.Code != "42703" {
		t.Errorf("server error = %v, want SQLSTATE 42703", se.Err)
	}
	// Runtime errors without a server position point at the statement.
	err = sqlscript.ExecFile(context.Background(), db, "m.sql", []byte("SELECT 1;\n   CREATE TABLE public.a (id int);"))
	if !errors.As(err, &se) || se.Pos.String() != "m.sql:2:4" {
		t.Errorf("got %v, want a failure at m.sql:2:4", err)
	}
}

func TestSubstituteDim(t *testing.T) {
	got := scratch.SubstituteDim("embedding vector(:dim), x::dimension, :dimension, (:dim)", 1024)
	want := "embedding vector(1024), x::dimension, :dimension, (1024)"
	if got != want {
		t.Errorf("SubstituteDim = %q, want %q", got, want)
	}
}

func TestDatabasesAreIndependentCopies(t *testing.T) {
	a := scratchtest.NewDatabase(t, 1536)
	b := scratchtest.NewDatabase(t, 1536)
	scratchtest.Exec(t, a, "a.sql", "CREATE TABLE public.only_in_a (id int);")
	var n int
	if err := scratchtest.Connect(t, b).QueryRow(context.Background(), `SELECT count(*) FROM pg_class WHERE relname = 'only_in_a'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("table created in %s is visible in %s (n=%d, err=%v)", a.Name, b.Name, n, err)
	}
}

// TestTwoClustersAtOnce starts two embedded clusters side by side: their directories, sockets
// and databases must not collide, and closing them leaves no process and no directory.
func TestTwoClustersAtOnce(t *testing.T) {
	scratchtest.Server(t) // skip or fail like the others when Postgres is unavailable
	ctx := context.Background()
	var servers [2]*scratch.Server
	var errs [2]error
	var wg sync.WaitGroup
	for i := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i], errs[i] = scratch.Start(ctx, scratch.Options{})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("cluster %d: %v", i, err)
		}
	}
	if servers[0].Dir() == servers[1].Dir() {
		t.Fatalf("both clusters use %s", servers[0].Dir())
	}
	for i, s := range servers {
		db, err := s.NewEnvDatabase(ctx)
		if err != nil {
			t.Fatalf("cluster %d: %v", i, err)
		}
		if err := sqlscript.ExecFile(ctx, db, "x.sql", []byte(fmt.Sprintf("CREATE TABLE public.t%d (id int);", i))); err != nil {
			t.Fatalf("cluster %d: %v", i, err)
		}
	}
	for _, s := range servers {
		pid := scratch.SandboxPID(s.Dir())
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := scratchtest.Gone(pid, s.Dir()); err != nil {
			t.Error(err)
		}
	}
}

func TestMissingBinaries(t *testing.T) {
	_, err := scratch.Start(context.Background(), scratch.Options{PGBin: t.TempDir()})
	if fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), "--pg-bin") {
		t.Errorf("got %v, want an environment error naming --pg-bin", err)
	}
}

func TestBinDirEnv(t *testing.T) {
	t.Setenv(scratch.VersionEnv, "")
	t.Setenv(scratch.BinDirEnv, t.TempDir())
	_, err := scratch.FindBinDir("", 0)
	if fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), scratch.BinDirEnv) {
		t.Errorf("got %v, want an environment error naming %s", err, scratch.BinDirEnv)
	}
	if _, err := scratch.FindBinDir(t.TempDir(), 0); err == nil || strings.Contains(err.Error(), scratch.BinDirEnv) {
		t.Errorf("got %v, want --pg-bin to win over %s", err, scratch.BinDirEnv)
	}
}

// A Base builds a template of its own per dimension: Prepare runs once in it (as the install
// role, after the prerequisites unless NoOpenBrain), every database is a copy, and Prepare's
// error is returned unchanged to every caller.
func TestBaseTemplates(t *testing.T) {
	srv := scratchtest.Server(t)
	ctx := context.Background()
	var mu sync.Mutex
	runs := 0
	base := scratch.Base{NoOpenBrain: true, Key: "tags-v1", Prepare: func(ctx context.Context, db *scratch.Database) error {
		mu.Lock()
		runs++
		mu.Unlock()
		return sqlscript.ExecFile(ctx, db, "tags.sql", []byte("CREATE TABLE public.tags (id int, width int DEFAULT :dim);\n"))
	}}
	for range 2 {
		db, err := srv.NewDatabaseFrom(ctx, 768, base)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Drop(context.Background()) })
		conn := scratchtest.Connect(t, db)
		var width, thoughts string
		if err := conn.QueryRow(ctx, `SELECT pg_get_expr(d.adbin, d.adrelid), coalesce(to_regclass('public.thoughts')::text, 'none')
			FROM pg_attrdef d WHERE d.adrelid = 'public.tags'::regclass`).Scan(&width, &thoughts); err != nil {
			t.Fatal(err)
		}
		if width != "768" || thoughts != "none" {
			t.Errorf("width default %s, public.thoughts %s; want 768 and none (no Open Brain)", width, thoughts)
		}
	}
	if runs != 1 {
		t.Errorf("Prepare ran %d times for one template, want 1", runs)
	}
	boom := errors.New("boom")
	failing := scratch.Base{Key: "failing", Prepare: func(context.Context, *scratch.Database) error { return boom }}
	for range 2 {
		if _, err := srv.NewDatabaseFrom(ctx, 768, failing); err != boom {
			t.Errorf("NewDatabaseFrom = %v, want Prepare's error unchanged", err)
		}
	}
}

// A template of the old default privileges stands for a self-hosted project: what the install
// role creates in public (tables, sequences, functions) is granted to anon, authenticated and
// service_role at once, as Supabase's initial schema says. A new project's template, built
// beside it at the same dimension, grants the API roles no table, and both templates are kept
// apart (the same Base but for the model does not share a template).
func TestPrivilegeModelTemplates(t *testing.T) {
	srv := scratchtest.Server(t)
	ctx := context.Background()
	const sidecar = "CREATE TABLE public.notes (id bigserial PRIMARY KEY, body text);\n" +
		"CREATE FUNCTION public.note_count() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM public.notes';\n"
	for _, tc := range []struct {
		model scratch.PrivilegeModel
		want  string
	}{
		{scratch.NewProjectPrivileges, "anon table f, authenticated table f, anon sequence t, anon function t"},
		{scratch.OldDefaultPrivileges, "anon table t, authenticated table t, anon sequence t, anon function t"},
	} {
		db, err := srv.NewDatabaseFrom(ctx, 768, scratch.Base{NoOpenBrain: true, Privileges: tc.model})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Drop(context.Background()) })
		if err := sqlscript.ExecFile(ctx, db, "notes.sql", []byte(sidecar)); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := scratchtest.Connect(t, db).QueryRow(ctx, `SELECT format('anon table %s, authenticated table %s, anon sequence %s, anon function %s',
			has_table_privilege('anon', 'public.notes', 'SELECT,INSERT,UPDATE,DELETE'),
			has_table_privilege('authenticated', 'public.notes', 'SELECT'),
			has_sequence_privilege('anon', 'public.notes_id_seq', 'USAGE'),
			has_function_privilege('anon', 'public.note_count()', 'EXECUTE'))`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("model %q: %s; want %s", tc.model, got, tc.want)
		}
	}
}

// The digests' reader role reads every row of every table (row level security on, no policy)
// and holds nothing else: not a superuser, none of the server-program or server-file roles, and
// user SQL can neither change it nor take it over.
func TestReaderRoleReadsOnly(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	scratchtest.Exec(t, db, "t.sql", `CREATE TABLE public.hidden (id int);
INSERT INTO public.hidden VALUES (1), (2);
ALTER TABLE public.hidden ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.hidden FORCE ROW LEVEL SECURITY;`)
	conn, err := db.ConnectReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var name, path string
	var super, bypass, readAll, program, readFiles, writeFiles bool
	var rows int
	err = conn.QueryRow(ctx, `SELECT current_user, current_setting('search_path'), r.rolsuper, r.rolbypassrls,
		pg_has_role('pg_read_all_data', 'USAGE'), pg_has_role('pg_execute_server_program', 'MEMBER'),
		pg_has_role('pg_read_server_files', 'MEMBER'), pg_has_role('pg_write_server_files', 'MEMBER'),
		(SELECT count(*) FROM public.hidden)
		FROM pg_roles r WHERE r.rolname = current_user`).Scan(&name, &path, &super, &bypass, &readAll, &program, &readFiles, &writeFiles, &rows)
	if err != nil {
		t.Fatal(err)
	}
	if name == db.InstallRole() || name == db.AdminRole() || super || !bypass || !readAll || program || readFiles || writeFiles || rows != 2 || path != "pg_catalog" {
		t.Errorf("reader %s: superuser %v, bypassrls %v, pg_read_all_data %v, server program %v, server files %v/%v, rows %d (want 2), search_path %q",
			name, super, bypass, readAll, program, readFiles, writeFiles, rows, path)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO public.hidden VALUES (3)`); err == nil {
		t.Error("the reader wrote a row")
	}
	for _, sql := range []string{
		`ALTER ROLE "` + name + `" SUPERUSER`,
		`ALTER ROLE "` + name + `" PASSWORD 'mine'`,
		`GRANT "` + name + `" TO CURRENT_USER`,
	} {
		if _, err := db.Query(ctx, sql, scratch.QueryOptions{}); err == nil {
			t.Errorf("user SQL ran %s", sql)
		}
	}
}

// The settings a migration could give its own database (it owns it) reach no privileged
// session: search_path, role, the statement, lock and idle timeouts and the isolation level are
// fixed when the session starts, for the superuser's sessions and the digests' reader
// alike (a database SET statement_timeout = 1 ended the rerun audit's digest with exit 3). (The
// warden stops such a setting, warden.go; the script runs here without it, so that nothing but
// the startup parameters stands between the setting and the sessions.)
func TestPrivilegedSessionsIgnoreDatabaseSettings(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	user, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close(ctx)
	var serr error
	// One statement per Statement: the server runs each in a message of its own.
	if err := scratchtest.Server(t).WithoutWarden(ctx, func() {
		serr = scratch.ExecScript(ctx, user, &scratch.Script{Name: "settings.sql", Statements: []scratch.Statement{{Text: `CREATE ROLE lc_hijack NOLOGIN`}, {Text: `CREATE SCHEMA lc_evil`}, {Text: `DO $$ BEGIN
  EXECUTE format('ALTER DATABASE %I SET search_path = lc_evil, public', current_database());
  EXECUTE format('ALTER DATABASE %I SET role = lc_hijack', current_database());
  EXECUTE format('ALTER DATABASE %I SET statement_timeout = 1', current_database());
  EXECUTE format('ALTER DATABASE %I SET lock_timeout = 1', current_database());
  EXECUTE format('ALTER DATABASE %I SET idle_in_transaction_session_timeout = 1', current_database());
  EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = serializable', current_database());
END $$;`}}})
	}); err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	admin := scratchtest.ConnectAdmin(t, db)
	reader, err := db.ConnectReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close(ctx)
	for _, c := range []struct {
		name string
		conn interface {
			QueryRow(context.Context, string, ...any) pgx.Row
		}
	}{{"superuser", admin}, {"reader", reader}} {
		var user, session, path, rest string
		if err := c.conn.QueryRow(ctx, `SELECT current_user, session_user, current_setting('search_path'),
			concat_ws(' ', current_setting('statement_timeout'), current_setting('lock_timeout'),
				current_setting('idle_in_transaction_session_timeout'), current_setting('default_transaction_isolation'))`).Scan(&user, &session, &path, &rest); err != nil {
			t.Fatal(err)
		}
		if user != session || path != "pg_catalog" || rest != "0 0 0 read committed" {
			t.Errorf("%s session: current_user %s (session_user %s), search_path %q, timeouts and isolation %q", c.name, user, session, path, rest)
		}
	}
}
