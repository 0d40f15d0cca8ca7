package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// serverState is what a run must leave as it was on the server a --port-dsn names: the
// schema of the database (pg_dump -s where the server's major version has one: npm's
// PostgreSQL 17 has none), a listing of its catalogs read with SQL of this test's own (not
// ledgercheck's introspection, which is what is under test), and the server's databases and
// roles.
func serverState(t *testing.T, live *scratchtest.DSNServer, db string) string {
	t.Helper()
	bin, err := scratch.FindBinDir("", 0)
	if err != nil {
		t.Fatal(err)
	}
	var dump string
	if pgDump := filepath.Join(bin, "pg_dump"); fileExists(pgDump) {
		out, err := exec.Command(pgDump, "--schema-only", "-d", live.DSNOf("postgres", db)).Output()
		if err != nil {
			t.Fatalf("pg_dump: %v", err)
		}
		// pg_dump 15.14 and later write a random \restrict key.
		dump = regexp.MustCompile(`(?m)^\\(un)?restrict .*$`).ReplaceAllString(string(out), "")
	}
	var globals, catalogs string
	if err := live.Conn(t).QueryRow(context.Background(), `SELECT
		(SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database) || ' / ' ||
		(SELECT string_agg(rolname || ':' || rolsuper || rolcreaterole || rolcanlogin, ',' ORDER BY rolname) FROM pg_roles) || ' / ' ||
		(SELECT coalesce(string_agg(roleid::regrole || '>' || member::regrole, ',' ORDER BY 1), '') FROM pg_auth_members)`).Scan(&globals); err != nil {
		t.Fatal(err)
	}
	if err := live.ConnTo(t, db).QueryRow(context.Background(), catalogListing).Scan(&catalogs); err != nil {
		t.Fatal(err)
	}
	return globals + "\n" + catalogs + "\n" + dump
}

// catalogListing lists what a schema change would touch: relations with their privileges,
// columns, defaults, constraints, indexes, policies, triggers, functions with their bodies and
// privileges, schemas, comments and default privileges, one line each, in a stable order.
const catalogListing = `SELECT string_agg(x, E'\n' ORDER BY x) FROM (
	SELECT 'rel ' || c.oid::regclass || ' ' || c.relkind::text || ' ' || coalesce(c.relacl::text, '') || ' ' || c.relrowsecurity || ' ' || coalesce(c.reloptions::text, '') || ' ' || c.relowner::regrole AS x
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
	UNION ALL SELECT 'col ' || a.attrelid::regclass || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' ' || coalesce(a.attacl::text, '') || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
	FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
	WHERE a.attnum > 0 AND NOT a.attisdropped AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
	UNION ALL SELECT 'con ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
	UNION ALL SELECT 'idx ' || pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid::regclass::text NOT LIKE 'pg_%'
	UNION ALL SELECT 'pol ' || polrelid::regclass || ' ' || polname || ' ' || polcmd::text || ' ' || polroles::text || ' ' || coalesce(pg_get_expr(polqual, polrelid), '') || ' ' || coalesce(pg_get_expr(polwithcheck, polrelid), '') FROM pg_policy
	UNION ALL SELECT 'trg ' || tgrelid::regclass || ' ' || tgname || ' ' || tgenabled::text || ' ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
	UNION ALL SELECT 'fn ' || p.oid::regprocedure || ' ' || coalesce(p.proacl::text, '') || ' ' || p.prosecdef || ' ' || coalesce(p.proconfig::text, '') || ' ' || md5(p.prosrc) || ' ' || p.proowner::regrole
	FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
	UNION ALL SELECT 'nsp ' || nspname || ' ' || coalesce(nspacl::text, '') || ' ' || nspowner::regrole FROM pg_namespace
	UNION ALL SELECT 'cmt ' || classoid::regclass || ' ' || objoid || ' ' || objsubid || ' ' || md5(description) FROM pg_description WHERE objoid >= 16384
	UNION ALL SELECT 'dacl ' || defaclrole::regrole || ' ' || defaclnamespace || ' ' || defaclobjtype::text || ' ' || defaclacl::text FROM pg_default_acl
	UNION ALL SELECT 'ext ' || extname || ' ' || extversion FROM pg_extension
) s`

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// portFile is the shipped production port's file, from this package.
const portFile = "../../migrations/ports/decision_ledger_1024.sql"

// deployedPort starts a server standing in for a deployment (a --dsn server of the test's own,
// stopped when the test ends), deploys the shipped port into its database prod, and returns it
// with a DSN of prod for a role that has nothing but CONNECT.
func deployedPort(t *testing.T) (*scratchtest.DSNServer, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts two servers")
	}
	live, err := scratchtest.StartDSNServer(scratchtest.DSNServerOptions{})
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	t.Cleanup(func() { live.Stop() })
	live.Deploy(t, "prod", 1024, portFile)
	if _, err := live.Conn(t).Exec(context.Background(), "CREATE ROLE reader LOGIN"); err != nil {
		t.Fatal(err)
	}
	return live, live.DSNOf("reader", "prod")
}

// A database holding the shipped port, as a deployment installed it, passes parity with the
// port's file and the shipped allowlist, read by a role that has nothing but CONNECT; a grant to
// anon made afterwards is reported; and nothing on that server changes.
func TestParityLiveDatabase(t *testing.T) {
	live, reader := deployedPort(t)

	before := serverState(t, live, "prod")
	code, out, errs := runCLI(t, "parity", "--config", repoConfig, "--port-dsn", reader, "--port", portFile, "--port-dim", "1024")
	if code == ExitEnv {
		t.Skipf("no Postgres: %s", errs)
	}
	if code != ExitOK || !strings.Contains(out, "the port decision_ledger_1024 was read from the database reader@") {
		t.Errorf("the deployed port: exit %d\n%s%s", code, out, errs)
	}
	if after := serverState(t, live, "prod"); after != before {
		t.Errorf("parity changed the server it read:\nbefore %s\nafter %s", before, after)
	}

	if _, err := live.ConnTo(t, "prod").Exec(context.Background(), "GRANT SELECT ON public.agent_decision_ledger TO anon"); err != nil {
		t.Fatal(err)
	}
	before = serverState(t, live, "prod")
	code, out, errs = runCLI(t, "parity", "-q", "--config", repoConfig, "--port-dsn", reader, "--port", portFile, "--port-dim", "1024")
	if code != ExitFindings || !strings.Contains(out, "acl:anon of table public.agent_decision_ledger differs [unreviewed-difference]") {
		t.Errorf("a grant to anon in the deployment: exit %d\n%s%s", code, out, errs)
	}
	if after := serverState(t, live, "prod"); after != before {
		t.Errorf("parity changed the server it read:\nbefore %s\nafter %s", before, after)
	}

	// Without the port's file: the same drift, and the report says what it could not check.
	code, out, _ = runCLI(t, "parity", "-q", "--config", repoConfig, "--port-dsn", reader)
	for _, want := range []string{"acl:anon of table public.agent_decision_ledger differs", "signature typmods of the port production-1024 could not be verified",
		`(?m)^probes production-1024 +skip`} {
		if code != ExitFindings || !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("without the file: exit %d, want %q in\n%s", code, want, out)
		}
	}
}

// check with the port read from a deployment gives a verdict, never an internal error (issue:
// `check --port-dsn` indexed the lint phases by variant, and a variant read from a database alone
// has none). With the port's file, the deployment of the shipped port passes like its install;
// without it (the README's "A deployed database"), the artifact goes through every step, the
// port is only compared (no lint, install, audit or rerun phase of its own), and the entries for
// objects only the port's own file creates cannot match (parity's note says so).
func TestCheckLiveDatabase(t *testing.T) {
	scratchtest.NeedPostgres(t)
	live, reader := deployedPort(t)
	before := serverState(t, live, "prod")
	defer func() {
		if after := serverState(t, live, "prod"); after != before {
			t.Errorf("check changed the server it read:\nbefore %s\nafter %s", before, after)
		}
	}()

	code, out, errs := runCLI(t, "check", "--config", repoConfig, "--port-dsn", reader, "--port", portFile, "--port-dim", "1024")
	if code != ExitOK || !regexp.MustCompile(`(?m)^lint decision_ledger_1024 +pass`).MatchString(out) {
		t.Errorf("check --port-dsn --port on a deployment of the shipped port: exit %d\n%s%s", code, out, errs)
	}

	code, out, errs = runCLI(t, "check", "--config", repoConfig, "--port-dsn", reader, "--port-dim", "1024")
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("check --port-dsn without the port's file: exit %d, want a verdict\n%s%s", code, out, errs)
	}
	for _, want := range []string{`(?m)^lint artifact +pass`, `(?m)^parity production-1024 +pass`, `(?m)^rerun artifact +pass`,
		"the port production-1024 was read from the database reader@"} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("check --port-dsn: want %q in\n%s", want, out)
		}
	}
	if regexp.MustCompile(`(?m)^(lint|audit|rerun) production-1024`).MatchString(out) {
		t.Errorf("a port read from a database alone has no file to lint, audit or rerun:\n%s", out)
	}
}
