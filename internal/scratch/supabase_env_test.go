package scratch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// embeddedOnly skips a test of the stand-in extensions on a --dsn server, which has them only if
// they were copied into its extension directory (30_supabase_services.sql).
func embeddedOnly(t *testing.T) {
	t.Helper()
	if !scratchtest.Server(t).Embedded() {
		t.Skip("the stand-in extensions are shown to the embedded cluster only")
	}
}

// TestSupabaseExtensionsHaveSupabaseSignatures: pg_cron 1.6 (in pg_catalog, objects in cron),
// pg_net (in extensions, objects in net) and supabase_vault (in vault) are extensions of the
// template, and every function of their interface has the signature and result type the facts
// give (docs/supabase-environment.md, §1 to §3).
func TestSupabaseExtensionsHaveSupabaseSignatures(t *testing.T) {
	embeddedOnly(t)
	db := scratchtest.NewDatabase(t, 1536)
	conn := scratchtest.Connect(t, db)
	ctx := context.Background()

	exts := map[string]string{}
	rows, err := conn.Query(ctx, `SELECT e.extname, e.extversion || ' ' || n.nspname FROM pg_extension e
		JOIN pg_namespace n ON n.oid = e.extnamespace`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, v string
		if err := rows.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		exts[name] = v
	}
	for name, want := range map[string]string{"pg_cron": "1.6 pg_catalog", "pg_net": "0.20.4 extensions", "supabase_vault": "0.3.1 vault"} {
		if exts[name] != want {
			t.Errorf("extension %s: %q, want %q", name, exts[name], want)
		}
	}

	checkStandInInterface(t, conn)

	// What a sidecar says to enable them is a no-op, as on Supabase.
	scratchtest.Exec(t, db, "enable.sql", `CREATE EXTENSION IF NOT EXISTS pg_cron WITH SCHEMA pg_catalog;
		CREATE EXTENSION IF NOT EXISTS pg_net WITH SCHEMA extensions;
		CREATE EXTENSION IF NOT EXISTS supabase_vault;`)
}

// checkStandInInterface fails t unless every function of the stand-ins' interface has the
// signature and result type the facts give (docs/supabase-environment.md, §1 to §3), and their
// tables have Supabase's columns.
func checkStandInInterface(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	want := []string{
		"cron.alter_job(job_id bigint, schedule text DEFAULT NULL::text, command text DEFAULT NULL::text, database text DEFAULT NULL::text, username text DEFAULT NULL::text, active boolean DEFAULT NULL::boolean) void",
		"cron.schedule(job_name text, schedule text, command text) bigint",
		"cron.schedule(schedule text, command text) bigint strict",
		"cron.schedule_in_database(job_name text, schedule text, command text, database text, username text DEFAULT NULL::text, active boolean DEFAULT true) bigint",
		"cron.unschedule(job_id bigint) boolean strict",
		"cron.unschedule(job_name text) boolean strict",
		"net.http_collect_response(request_id bigint, async boolean DEFAULT true) net.http_response_result",
		`net.http_delete(url text, params jsonb DEFAULT '{}'::jsonb, headers jsonb DEFAULT '{}'::jsonb, timeout_milliseconds integer DEFAULT 5000, body jsonb DEFAULT NULL::jsonb) bigint`,
		`net.http_get(url text, params jsonb DEFAULT '{}'::jsonb, headers jsonb DEFAULT '{}'::jsonb, timeout_milliseconds integer DEFAULT 5000) bigint`,
		`net.http_post(url text, body jsonb DEFAULT '{}'::jsonb, params jsonb DEFAULT '{}'::jsonb, headers jsonb DEFAULT '{"Content-Type": "application/json"}'::jsonb, timeout_milliseconds integer DEFAULT 5000) bigint`,
		"vault.create_secret(new_secret text, new_name text DEFAULT NULL::text, new_description text DEFAULT ''::text, new_key_id uuid DEFAULT NULL::uuid) uuid definer",
		"vault.update_secret(secret_id uuid, new_secret text DEFAULT NULL::text, new_name text DEFAULT NULL::text, new_description text DEFAULT NULL::text, new_key_id uuid DEFAULT NULL::uuid) void definer",
	}
	rows, err := conn.Query(ctx, `SELECT n.nspname || '.' || p.proname || '(' || pg_get_function_arguments(p.oid) || ') '
			|| pg_get_function_result(p.oid) || CASE WHEN p.proisstrict THEN ' strict' ELSE '' END
			|| CASE WHEN n.nspname = 'vault' AND p.prosecdef THEN ' definer' ELSE '' END
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE (n.nspname = 'cron' AND p.proname IN ('schedule', 'unschedule', 'alter_job', 'schedule_in_database'))
		   OR (n.nspname = 'net' AND p.proname IN ('http_get', 'http_post', 'http_delete', 'http_collect_response'))
		   OR (n.nspname = 'vault' AND p.proname IN ('create_secret', 'update_secret'))
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("signatures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The tables, column by column.
	for table, cols := range map[string]string{
		"cron.job":                "jobid bigint, schedule text, command text, nodename text, nodeport integer, database text, username text, active boolean, jobname text",
		"cron.job_run_details":    "jobid bigint, runid bigint, job_pid integer, database text, username text, command text, status text, return_message text, start_time timestamp with time zone, end_time timestamp with time zone",
		"net.http_request_queue":  "id bigint, method net.http_method, url text, headers jsonb, body bytea, timeout_milliseconds integer",
		"net._http_response":      "id bigint, status_code integer, content_type text, headers jsonb, content text, timed_out boolean, error_msg text, created timestamp with time zone",
		"vault.secrets":           "id uuid, name text, description text, secret text, key_id uuid, nonce bytea, created_at timestamp with time zone, updated_at timestamp with time zone",
		"vault.decrypted_secrets": "id uuid, name text, description text, secret text, decrypted_secret text, key_id uuid, nonce bytea, created_at timestamp with time zone, updated_at timestamp with time zone",
	} {
		var got string
		if err := conn.QueryRow(ctx, `SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)
			FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`, table).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != cols {
			t.Errorf("%s: %s\nwant %s", table, got, cols)
		}
	}

}

// TestSupabaseGrants: who may use cron, net and vault is what Supabase grants (facts §1 to §3):
// postgres schedules jobs but cannot write cron.job itself; anon and authenticated have nothing
// in cron or vault; every API role may queue requests with pg_net; postgres and service_role
// store and read secrets.
func TestSupabaseGrants(t *testing.T) {
	embeddedOnly(t)
	db := scratchtest.NewDatabase(t, 1536)
	conn := scratchtest.Connect(t, db)
	ctx := context.Background()
	for _, c := range []struct {
		query string
		want  bool
	}{
		{`has_schema_privilege('postgres', 'cron', 'USAGE WITH GRANT OPTION')`, true},
		{`has_table_privilege('postgres', 'cron.job', 'SELECT')`, true},
		{`has_table_privilege('postgres', 'cron.job', 'INSERT')`, false},
		{`has_table_privilege('postgres', 'cron.job_run_details', 'DELETE')`, true},
		{`has_table_privilege('postgres', 'cron.job_run_details', 'TRIGGER')`, false},
		{`has_function_privilege('postgres', 'cron.alter_job(bigint,text,text,text,text,boolean)', 'EXECUTE')`, true},
		{`has_function_privilege('anon', 'cron.alter_job(bigint,text,text,text,text,boolean)', 'EXECUTE')`, false},
		{`has_schema_privilege('anon', 'cron', 'USAGE')`, false},
		{`has_schema_privilege('authenticated', 'cron', 'USAGE')`, false},
		{`has_schema_privilege('anon', 'net', 'USAGE')`, true},
		{`has_function_privilege('anon', 'net.http_post(text,jsonb,jsonb,jsonb,integer)', 'EXECUTE')`, true},
		{`has_schema_privilege('anon', 'vault', 'USAGE')`, false},
		{`has_schema_privilege('authenticated', 'vault', 'USAGE')`, false},
		{`has_table_privilege('service_role', 'vault.decrypted_secrets', 'SELECT')`, true},
		{`has_table_privilege('postgres', 'vault.secrets', 'INSERT')`, false},
		{`has_function_privilege('postgres', 'vault.create_secret(text,text,text,uuid)', 'EXECUTE WITH GRANT OPTION')`, true},
		{`has_function_privilege('authenticated', 'vault.create_secret(text,text,text,uuid)', 'EXECUTE')`, false},
	} {
		var got bool
		if err := conn.QueryRow(ctx, "SELECT "+c.query).Scan(&got); err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got != c.want {
			t.Errorf("%s = %v, want %v", c.query, got, c.want)
		}
	}
	// postgres cannot write cron.job but for cron.schedule, and cannot schedule as another role.
	err := sqlscript.ExecFile(ctx, db, "direct.sql", []byte(`INSERT INTO cron.job (schedule, command) VALUES ('* * * * *', 'SELECT 1')`))
	var se *scratch.ScriptError
	if !errors.As(err, &se) || se.PgError() == nil || se.PgError().Code != "42501" {
		t.Errorf("INSERT INTO cron.job as postgres: %v, want permission denied", err)
	}
	err = sqlscript.ExecFile(ctx, db, "other.sql", []byte(`SELECT cron.schedule_in_database('x', '* * * * *', 'SELECT 1', current_database(), 'supabase_admin')`))
	if !errors.As(err, &se) || !strings.Contains(se.Message(), "must be superuser") {
		t.Errorf("scheduling as supabase_admin: %v, want a refusal", err)
	}
	err = sqlscript.ExecFile(ctx, db, "bad.sql", []byte(`SELECT cron.schedule('nightly', '0 3 * *', 'SELECT 1')`))
	if !errors.As(err, &se) || !strings.Contains(se.Message(), "invalid schedule") {
		t.Errorf("a schedule of four fields: %v, want invalid schedule", err)
	}
}

// TestCronSchedulesAndUnschedulesAsPgCron: a named schedule updates the job of that name, an
// unnamed one adds a job, unschedule of an unknown job fails, as pg_cron's do.
func TestCronSchedulesAndUnschedulesAsPgCron(t *testing.T) {
	embeddedOnly(t)
	db := scratchtest.NewDatabase(t, 1536)
	conn := scratchtest.Connect(t, db)
	ctx := context.Background()
	scratchtest.Exec(t, db, "jobs.sql", `
		SELECT cron.schedule('nightly', '0 3 * * *', 'SELECT 1');
		SELECT cron.schedule('nightly', '0 4 * * *', 'SELECT 2');
		SELECT cron.schedule('30 seconds', 'SELECT 3');
		SELECT cron.schedule('@daily', 'SELECT 3');`)
	var named, all int
	var sched, cmd, user string
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE jobname = 'nightly'), count(*),
		max(schedule) FILTER (WHERE jobname = 'nightly'), max(command) FILTER (WHERE jobname = 'nightly'), max(username) FROM cron.job`).Scan(&named, &all, &sched, &cmd, &user); err != nil {
		t.Fatal(err)
	}
	if named != 1 || all != 3 || sched != "0 4 * * *" || cmd != "SELECT 2" || user != "postgres" {
		t.Errorf("jobs: %d named, %d in all, %q %q by %s; want 1, 3, the second schedule, by postgres", named, all, sched, cmd, user)
	}
	scratchtest.Exec(t, db, "unschedule.sql", `SELECT cron.unschedule('nightly');`)
	err := sqlscript.ExecFile(ctx, db, "again.sql", []byte(`SELECT cron.unschedule('nightly')`))
	var se *scratch.ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message(), "could not find valid entry for job 'nightly'") {
		t.Errorf("unscheduling a job twice: %v, want pg_cron's error", err)
	}
}

// TestNoCronJobEverRuns: a job scheduled every minute never runs during a run, because nothing
// that could run it exists. pg_cron runs jobs from its launcher, a background worker its module
// registers when preloaded; the stand-in has no module (no function of the extension is
// LANGUAGE c), nothing is preloaded, and no process of the sandbox is a launcher or a worker of
// pg_cron or pg_net, while the processes the test can see prove it sees the server's own. The
// job's side effect, a row in a table, is absent, and cron.job_run_details stays empty.
func TestNoCronJobEverRuns(t *testing.T) {
	embeddedOnly(t)
	srv := scratchtest.Server(t)
	db := scratchtest.NewDatabase(t, 1536)
	conn := scratchtest.Connect(t, db)
	ctx := context.Background()
	scratchtest.Exec(t, db, "job.sql", `
		CREATE TABLE public.cron_side_effect (at timestamptz DEFAULT now());
		SELECT cron.schedule('every-minute', '* * * * *', 'INSERT INTO public.cron_side_effect DEFAULT VALUES');
		SELECT cron.schedule('1 seconds', $$SELECT net.http_post('http://127.0.0.1:9/', '{}'::jsonb)$$);`)

	var cLang int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
		JOIN pg_language l ON l.oid = p.prolang JOIN pg_extension e ON e.oid = d.refobjid
		WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e' AND e.extname IN ('pg_cron', 'pg_net', 'supabase_vault') AND l.lanname = 'c'`).Scan(&cLang); err != nil {
		t.Fatal(err)
	}
	if cLang != 0 {
		t.Errorf("%d functions of the stand-ins are LANGUAGE c: a module would be loaded", cLang)
	}
	admin := scratchtest.ConnectAdmin(t, db)
	var preload string
	if err := admin.QueryRow(ctx, `SELECT current_setting('shared_preload_libraries')`).Scan(&preload); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(preload, "cron") || strings.Contains(preload, "net") {
		t.Errorf("shared_preload_libraries = %q", preload)
	}

	// Every process of the sandbox, by its title ("postgres: checkpointer", "postgres: pg_cron
	// launcher", ...), read on the host from the sandbox's process tree.
	titles := sandboxTitles(t, scratch.SandboxPID(srv.Dir()))
	if !slices.ContainsFunc(titles, func(s string) bool { return strings.Contains(s, "checkpointer") }) {
		t.Fatalf("the sandbox's processes %q have no checkpointer: the test cannot see the server's processes", titles)
	}
	for _, title := range titles {
		if strings.Contains(title, "cron") || strings.Contains(title, "pg_net") || strings.Contains(title, "background worker") {
			t.Errorf("a process of the sandbox could run jobs or send requests: %q", title)
		}
	}
	var workers int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE backend_type ILIKE '%cron%' OR backend_type ILIKE '%pg_net%'`).Scan(&workers); err != nil {
		t.Fatal(err)
	}
	if workers != 0 {
		t.Errorf("%d pg_cron or pg_net backends", workers)
	}
	// The jobs are there, and have never run.
	var jobs, runs, effects, queued int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM cron.job), (SELECT count(*) FROM cron.job_run_details),
		(SELECT count(*) FROM public.cron_side_effect), (SELECT count(*) FROM net.http_request_queue)`).Scan(&jobs, &runs, &effects, &queued); err != nil {
		t.Fatal(err)
	}
	if jobs != 2 || runs != 0 || effects != 0 || queued != 0 {
		t.Errorf("%d jobs, %d runs, %d side effects, %d requests queued; want 2, 0, 0, 0", jobs, runs, effects, queued)
	}
}

// sandboxTitles returns the command lines of every process below the sandbox's init pid.
func sandboxTitles(t *testing.T, pid int) []string {
	t.Helper()
	if pid <= 0 {
		t.Fatal("no sandbox")
	}
	var out []string
	var walk func(int)
	walk = func(p int) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", p, p))
		if err != nil {
			return
		}
		for _, f := range strings.Fields(string(b)) {
			c, _ := strconv.Atoi(f)
			if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c)); err == nil {
				out = append(out, strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " ")))
			}
			walk(c)
		}
	}
	walk(pid)
	return out
}

// TestPgNetRecordsAndSendsNothing: net.http_post queues the request as pg_net does (the URL with
// its query string, the JSON body, the default Content-Type) and no response ever arrives;
// another Content-Type is refused as pg_net refuses it.
func TestPgNetRecordsAndSendsNothing(t *testing.T) {
	embeddedOnly(t)
	db := scratchtest.NewDatabase(t, 1536)
	conn := scratchtest.Connect(t, db)
	ctx := context.Background()
	var id int64
	if err := conn.QueryRow(ctx, `SELECT net.http_post(url := 'https://example.invalid/hook', body := '{"a": 1}'::jsonb,
		params := '{"q": "a b"}'::jsonb)`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	var method, url, headers, body string
	if err := conn.QueryRow(ctx, `SELECT method, url, headers::text, convert_from(body, 'UTF8') FROM net.http_request_queue WHERE id = $1`, id).Scan(&method, &url, &headers, &body); err != nil {
		t.Fatal(err)
	}
	if method != "POST" || url != "https://example.invalid/hook?q=a%20b" || headers != `{"Content-Type": "application/json"}` || body != `{"a": 1}` {
		t.Errorf("queued %s %s %s %s", method, url, headers, body)
	}
	var status string
	if err := conn.QueryRow(ctx, `SELECT (net._http_collect_response($1)).status::text`, id).Scan(&status); err != nil {
		t.Fatal(err)
	}
	if status != "PENDING" {
		t.Errorf("response status %s, want PENDING", status)
	}
	err := sqlscript.ExecFile(ctx, db, "form.sql", []byte(`SELECT net.http_post('https://example.invalid/', headers := '{"Content-Type": "text/plain"}'::jsonb)`))
	var se *scratch.ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message(), "Content-Type header must be") {
		t.Errorf("a text/plain post: %v, want pg_net's refusal", err)
	}
}

// TestVaultRealtimeStorageAndRoles: a secret stored with vault.create_secret reads back from
// vault.decrypted_secrets, and not in the clear from vault.secrets; the supabase_realtime
// publication is empty, not FOR ALL TABLES, and postgres adds its own table to it; the storage
// helpers split paths as Supabase's do; Supabase's roles exist.
func TestVaultRealtimeStorageAndRoles(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1536)
	conn := scratchtest.Connect(t, db)
	ctx := context.Background()
	if scratchtest.Server(t).Embedded() {
		var id, stored, decrypted string
		if err := conn.QueryRow(ctx, `SELECT vault.create_secret('hunter2', 'project_url')::text`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, `SELECT v.secret, d.decrypted_secret FROM vault.secrets v JOIN vault.decrypted_secrets d ON d.id = v.id
			WHERE v.id = $1::uuid AND v.name = 'project_url'`, id).Scan(&stored, &decrypted); err != nil {
			t.Fatal(err)
		}
		if decrypted != "hunter2" || stored == "hunter2" {
			t.Errorf("secret stored as %q, read back as %q", stored, decrypted)
		}
	}
	var all bool
	var owner string
	var tables int
	if err := conn.QueryRow(ctx, `SELECT p.puballtables, pg_get_userbyid(p.pubowner), (SELECT count(*) FROM pg_publication_rel r WHERE r.prpubid = p.oid)
		FROM pg_publication p WHERE p.pubname = 'supabase_realtime'`).Scan(&all, &owner, &tables); err != nil {
		t.Fatal(err)
	}
	if all || tables != 0 || owner != db.InstallRole() {
		t.Errorf("supabase_realtime: all tables %v, %d tables, owner %s", all, tables, owner)
	}
	scratchtest.Exec(t, db, "realtime.sql", `CREATE TABLE public.live_notes (id bigint PRIMARY KEY);
		ALTER PUBLICATION supabase_realtime ADD TABLE public.live_notes;`)

	var folders, file, ext string
	if err := conn.QueryRow(ctx, `SELECT storage.foldername('user-1/docs/report.final.pdf')::text,
		storage.filename('user-1/docs/report.final.pdf'), storage.extension('user-1/docs/report.final.pdf')`).Scan(&folders, &file, &ext); err != nil {
		t.Fatal(err)
	}
	if folders != "{user-1,docs}" || file != "report.final.pdf" || ext != "pdf" {
		t.Errorf("foldername %s, filename %s, extension %s", folders, file, ext)
	}
	var missing []string
	rows, err := conn.Query(ctx, `SELECT r FROM unnest(ARRAY['dashboard_user', 'supabase_functions_admin', 'supabase_realtime_admin',
		'supabase_replication_admin', 'supabase_read_only_user', 'pgbouncer', 'supabase_auth_admin', 'supabase_storage_admin', 'authenticator']) r
		WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r)`)
	if err != nil {
		t.Fatal(err)
	}
	if missing, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil || len(missing) > 0 {
		t.Errorf("missing roles %v (%v)", missing, err)
	}
}

// TestStandInsAsPlainSQLOnADSNServer: a --dsn server does not offer the stand-in extensions, so
// their scripts run as plain SQL in each template: the same interface and Supabase's grants,
// cron.schedule and net.http_post work as in the embedded cluster, and no extension row claims
// pg_cron, pg_net or supabase_vault.
func TestStandInsAsPlainSQLOnADSNServer(t *testing.T) {
	dsn := scratchtest.SharedDSNServer(t)
	ctx := context.Background()
	s, err := scratch.Start(ctx, scratch.Options{DSN: dsn.DSN})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := s.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	checkStandInInterface(t, conn)
	var exts int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_extension WHERE extname IN ('pg_cron', 'pg_net', 'supabase_vault')`).Scan(&exts); err != nil || exts != 0 {
		t.Errorf("%d extension rows (%v), want none: the server does not offer the stand-ins", exts, err)
	}
	var job, req int64
	var secret string
	if err := conn.QueryRow(ctx, `SELECT cron.schedule('nightly', '0 3 * * *', 'SELECT 1'), net.http_post('https://example.invalid/'),
		vault.create_secret('s3cret', 'k')::text`).Scan(&job, &req, &secret); err != nil {
		t.Fatal(err)
	}
	var insert, selectJob bool
	if err := conn.QueryRow(ctx, `SELECT has_table_privilege(current_user, 'cron.job', 'INSERT'), has_table_privilege(current_user, 'cron.job', 'SELECT')`).Scan(&insert, &selectJob); err != nil {
		t.Fatal(err)
	}
	if insert || !selectJob {
		t.Errorf("the install role may insert into cron.job: %v, select: %v; want false, true", insert, selectJob)
	}
	checkPinnedSearchPath(t, conn)
	attackDefiners(t, db)
}

// TestStandInDefinersIgnoreTemporaryTypes: the class is "code of the stand-ins that runs with
// the superuser's rights": their SECURITY DEFINER functions and whatever those call. Every
// function of the stand-ins' schemas pins search_path = pg_catalog, pg_temp (checked on the
// catalog, so a function added later is covered), and an attack as user SQL would make it
// shows why (attackDefiners).
func TestStandInDefinersIgnoreTemporaryTypes(t *testing.T) {
	embeddedOnly(t)
	db := scratchtest.NewDatabase(t, 1536)
	checkPinnedSearchPath(t, scratchtest.Connect(t, db))
	attackDefiners(t, db)
}

// checkPinnedSearchPath fails t unless every function in cron, net and vault pins search_path =
// pg_catalog, pg_temp.
func checkPinnedSearchPath(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname IN ('cron', 'net', 'vault')
		  AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false) ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	unpinned, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(unpinned) > 0 {
		t.Errorf("functions without search_path = pg_catalog, pg_temp: %v", unpinned)
	}
}

// attackDefiners attacks the stand-ins' SECURITY DEFINER functions (owned by the superuser) as
// user SQL would: a temporary type named text, with casts from uuid and name whose function
// records, in a sequence (which no rollback undoes), whether it ran as a superuser, and a cast
// back to pg_catalog.text, so that the calls still type-check. pg_temp is searched first for
// types unless the search_path lists it, so a definer function whose body writes ::text would
// run the attacker's casts with the owner's rights. The payload must never run.
func attackDefiners(t *testing.T, db *scratch.Database) {
	t.Helper()
	ctx := context.Background()
	for _, call := range []string{
		`SELECT cron.schedule('attack', '* * * * *', 'SELECT 1')`,
		`SELECT cron.unschedule('no-such-job')`,
		`SELECT vault.create_secret('attack')`,
	} {
		conn, err := db.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		setup := `DROP SEQUENCE IF EXISTS public.ran_as; CREATE SEQUENCE public.ran_as START 100;
			CREATE TYPE pg_temp.text AS (x int);
			CREATE FUNCTION pg_temp.payload(anyelement) RETURNS pg_temp.text LANGUAGE sql AS
			  $$ SELECT setval('public.ran_as', CASE WHEN (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN 1 ELSE 2 END);
			     SELECT ROW(1)::pg_temp.text $$;
			CREATE FUNCTION pg_temp.back(pg_temp.text) RETURNS pg_catalog.text LANGUAGE sql AS
			  $$ SELECT setval('public.ran_as', CASE WHEN (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN 1 ELSE 2 END);
			     SELECT 'x'::pg_catalog.text $$;
			CREATE CAST (uuid AS pg_temp.text) WITH FUNCTION pg_temp.payload(anyelement) AS IMPLICIT;
			CREATE CAST (name AS pg_temp.text) WITH FUNCTION pg_temp.payload(anyelement) AS IMPLICIT;
			CREATE CAST (pg_temp.text AS pg_catalog.text) WITH FUNCTION pg_temp.back(pg_temp.text) AS IMPLICIT;`
		if _, err := conn.Exec(ctx, setup); err != nil {
			t.Fatalf("setting up the attack: %v", err)
		}
		_, _ = conn.Exec(ctx, call) // it may fail; what matters is who ran what
		var ranAs int64
		if err := conn.QueryRow(ctx, `SELECT last_value FROM public.ran_as`).Scan(&ranAs); err != nil {
			t.Fatal(err)
		}
		switch ranAs {
		case 1:
			t.Errorf("%s ran the attacker's cast as a superuser", call)
		case 2:
			t.Errorf("%s ran the attacker's cast", call)
		}
		conn.Close(ctx)
	}
}
