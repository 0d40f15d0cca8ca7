// Package guard_test attacks the server module ledgercheck_guard (c/ledgercheck_guard.c) the way
// an untrusted migration would: as the role postgres (NOSUPERUSER CREATEDB CREATEROLE, as on
// Supabase) in a PostgreSQL 15 cluster of its own that preloads the module. Every refusal is also
// run on a cluster without the module, where it must succeed, so that no test can pass because
// PostgreSQL 15 refused by itself or because the module silently did nothing.
package guard_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// hint is the HINT of every refusal of the guard.
const hint = "ledgercheck_guard gives PostgreSQL 15 the CREATEROLE rules of PostgreSQL 16."

// vectors are the ways a migration can run a GRANT of {role} to postgres: statically, and through
// SPI in atomic (function) and non-atomic (DO, procedure) contexts. (ALTER GROUP pg_... ADD USER
// is no way in: PostgreSQL 15 refuses to alter a role whose name starts with pg_.)
var vectors = []struct{ name, setup, attack string }{
	{"GRANT", "", "GRANT {role} TO postgres"},
	{"DO block EXECUTE", "", "DO $$ BEGIN EXECUTE 'GRANT {role} TO postgres'; END $$"},
	{"SECURITY INVOKER plpgsql function",
		"CREATE OR REPLACE FUNCTION public.escalate() RETURNS void LANGUAGE plpgsql SECURITY INVOKER AS $$ BEGIN EXECUTE 'GRANT {role} TO postgres'; END $$",
		"SELECT public.escalate()"},
	{"SQL function",
		"CREATE OR REPLACE FUNCTION public.escalate_sql() RETURNS void LANGUAGE sql AS $$ GRANT {role} TO postgres $$",
		"SELECT public.escalate_sql()"},
	{"procedure EXECUTE",
		"CREATE OR REPLACE PROCEDURE public.escalate_proc() LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'GRANT {role} TO postgres'; END $$",
		"CALL public.escalate_proc()"},
}

// serverRole is a predefined role that reaches the server's files or programs, with a probe that
// succeeds only for its members and, for probes that write, the file the probe writes.
type serverRole struct{ role, probe, file string }

func serverRoles(c *cluster) []serverRole {
	return []serverRole{
		{"pg_execute_server_program", "COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; id > " + c.path("pwned") + "'", c.path("pwned")},
		{"pg_write_server_files", "COPY (SELECT 'written') TO '" + c.path("written") + "'", c.path("written")},
		{"pg_read_server_files", "CREATE TEMP TABLE IF NOT EXISTS leak (line text); COPY leak FROM '" + c.path("data/PG_VERSION") + "'", ""},
		{"pg_read_all_data", "SELECT count(*) FROM public.secret", ""},
	}
}

// escalate runs vector's setup and attack for r as postgres in a new session, then r's probe in
// the same session, as an attacker would, and returns both errors.
func escalate(t *testing.T, c *cluster, setup, attack string, r serverRole) (attackErr, probeErr error) {
	t.Helper()
	conn := c.connect(t, "postgres", "postgres")
	defer conn.Close(context.Background())
	if setup != "" {
		if err := run(conn, strings.ReplaceAll(setup, "{role}", r.role)); err != nil {
			t.Fatalf("setting up the attack: %v", err)
		}
	}
	return run(conn, strings.ReplaceAll(attack, "{role}", r.role)), run(conn, r.probe)
}

// refusals are statements that PostgreSQL 15 allows a CREATEROLE role and PostgreSQL 16 does not,
// each with the role that runs it and the guard's error message.
var refusals = []struct{ name, as, sql, msg string }{
	{"grant a role one is a member of", "postgres", "GRANT service_role TO anon", `permission denied to grant role "service_role"`},
	{"grant oneself", "postgres", "GRANT postgres TO authenticator", `permission denied to grant role "postgres"`},
	{"grant a predefined role to a role of one's own", "postgres",
		"CREATE ROLE mine NOLOGIN; GRANT pg_execute_server_program TO mine", `permission denied to grant role "pg_execute_server_program"`},
	{"revoke", "postgres", "REVOKE anon FROM postgres", `permission denied to revoke role "anon"`},
	{"revoke admin option", "postgres", "REVOKE ADMIN OPTION FOR anon FROM authenticator", `permission denied to revoke role "anon"`},
	{"create in a predefined role", "postgres", "CREATE ROLE x IN ROLE pg_execute_server_program", `permission denied to grant role "pg_execute_server_program"`},
	{"create in an existing role", "postgres", "CREATE ROLE x IN ROLE service_role", `permission denied to grant role "service_role"`},
	{"create in group", "postgres", "CREATE ROLE x IN GROUP anon", `permission denied to grant role "anon"`},
	{"create CREATEDB without CREATEDB", "maker", "CREATE ROLE y CREATEDB", `permission denied to create role "y"`},
	{"alter group add user", "postgres", "ALTER GROUP service_role ADD USER anon", `permission denied to grant role "service_role"`},
	{"alter group drop user", "postgres", "ALTER GROUP anon DROP USER postgres", `permission denied to revoke role "anon"`},
	{"alter attributes", "postgres", "ALTER ROLE anon CREATEDB", `permission denied to alter role "anon"`},
	{"alter user", "postgres", "ALTER USER authenticator NOLOGIN", `permission denied to alter role "authenticator"`},
	{"alter another's password", "postgres", "ALTER ROLE anon PASSWORD 'x'", `permission denied to alter role "anon"`},
	{"alter one's own attributes", "maker", "ALTER ROLE maker CONNECTION LIMIT 3", `permission denied to alter role "maker"`},
	{"alter from a DO block", "postgres", "DO $$ BEGIN EXECUTE 'ALTER ROLE anon CREATEDB'; END $$", `permission denied to alter role "anon"`},
	{"rename", "postgres", "ALTER ROLE service_role RENAME TO s2", `permission denied to rename role "service_role"`},
	{"drop", "postgres", "DROP ROLE authenticated", `permission denied to drop role "authenticated"`},
	{"drop if exists", "postgres", "DROP ROLE IF EXISTS nosuch, authenticated", `permission denied to drop role "authenticated"`},
	{"set", "postgres", "ALTER ROLE anon SET statement_timeout = 0", `permission denied to alter role "anon"`},
	{"reset in database", "postgres", "ALTER ROLE authenticator IN DATABASE postgres RESET lock_timeout", `permission denied to alter role "authenticator"`},
	{"comment", "postgres", "COMMENT ON ROLE anon IS 'x'", `permission denied to comment on role "anon"`},
}

// allowed are role statements that PostgreSQL 16 allows and so must the guard.
var allowed = []struct{ name, as, sql string }{
	{"create a CREATEDB role with CREATEDB", "postgres", "CREATE ROLE ydb CREATEDB"},
	{"create with members and admins", "postgres", "CREATE ROLE z NOLOGIN ROLE anon ADMIN authenticated"},
	{"create in a role of one's own", "postgres", "CREATE ROLE a NOLOGIN; CREATE ROLE b NOLOGIN IN ROLE a; GRANT a TO anon WITH ADMIN OPTION"},
	{"own password", "maker", "ALTER ROLE maker PASSWORD 'x'"},
	{"own password without CREATEROLE", "plain", "ALTER ROLE plain PASSWORD 'x'"},
	{"own settings", "postgres", "ALTER ROLE postgres SET work_mem = '8MB'; ALTER ROLE postgres RESET search_path"},
	{"drop a missing role if exists", "postgres", "DROP ROLE IF EXISTS nosuch"},
	{"superuser", superuser, `GRANT pg_execute_server_program TO postgres; CREATE ROLE x IN ROLE pg_read_all_data;
		ALTER ROLE anon CREATEDB; ALTER ROLE service_role RENAME TO s2; COMMENT ON ROLE anon IS 'x'; DROP ROLE maker`},
}

// inTransaction runs sql as user in a transaction that is rolled back, and returns its error.
func inTransaction(t *testing.T, c *cluster, user, sql string) error {
	t.Helper()
	conn := c.connect(t, user, "postgres")
	defer conn.Close(context.Background())
	if err := run(conn, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	err := run(conn, sql)
	if rerr := run(conn, "ROLLBACK"); rerr != nil {
		t.Fatal(rerr)
	}
	return err
}

var deniedRe = regexp.MustCompile(`^permission denied to (.+) role "(.+)"$`)

// wantRefused fails unless err is the guard's refusal with message msg: SQLSTATE 42501, the
// detail that goes with msg, and the guard's hint.
func wantRefused(t *testing.T, err error, msg string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want the guard's refusal %q", err, msg)
	}
	detail := "Only roles with the CREATEDB attribute may create roles with the CREATEDB attribute."
	if m := deniedRe.FindStringSubmatch(msg); m != nil && m[1] != "create" {
		detail = `Only roles with the ADMIN option on role "` + m[2] + `" may ` + m[1] + ` this role.`
	}
	if pe.Code != "42501" || pe.Message != msg || pe.Detail != detail || pe.Hint != hint {
		t.Fatalf("got %s %q (detail %q, hint %q), want 42501 %q (detail %q, hint %q)",
			pe.Code, pe.Message, pe.Detail, pe.Hint, msg, detail, hint)
	}
}

// wantDenied fails unless err is a permission error (SQLSTATE 42501).
func wantDenied(t *testing.T, err error, what string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42501" {
		t.Errorf("%s: got %v, want permission denied (42501)", what, err)
	}
}

// TestGuard: with ledgercheck_guard preloaded, postgres cannot reach the server's files or
// programs through any role statement, is refused what PostgreSQL 16 refuses, and can still
// create, grant, alter and drop roles of its own, and install the decision-ledger port twice.
func TestGuard(t *testing.T) {
	c := startCluster(t, true)
	admin := c.connect(t, superuser, "postgres")

	t.Run("version is the digest of the source", func(t *testing.T) {
		var v string
		if err := admin.QueryRow(context.Background(), "SHOW ledgercheck_guard.version").Scan(&v); err != nil {
			t.Fatal(err)
		}
		if want := sourceDigest(t); v != want {
			t.Fatalf("the loaded ledgercheck_guard is %s, built from other source than %s (%s): run `make setup` as root", v, guardSource, want)
		}
		if err := run(admin, "SET ledgercheck_guard.version = 'forged'"); err == nil {
			t.Error("a superuser could SET ledgercheck_guard.version")
		}
	})

	for _, r := range serverRoles(c) {
		for _, v := range vectors {
			t.Run("escalation/"+v.name+"/"+r.role, func(t *testing.T) {
				attackErr, probeErr := escalate(t, c, v.setup, v.attack, r)
				wantRefused(t, attackErr, `permission denied to grant role "`+r.role+`"`)
				wantDenied(t, probeErr, "the probe "+r.probe)
				if r.file != "" {
					if _, err := os.Stat(r.file); !os.IsNotExist(err) {
						t.Errorf("the probe wrote %s (stat: %v)", r.file, err)
					}
				}
				if queryBool(t, admin, "SELECT pg_has_role('postgres', $1, 'MEMBER')", r.role) {
					t.Errorf("postgres became a member of %s", r.role)
				}
			})
		}
	}

	for _, tc := range refusals {
		t.Run("refuses/"+tc.name, func(t *testing.T) {
			wantRefused(t, inTransaction(t, c, tc.as, tc.sql), tc.msg)
		})
	}

	for _, tc := range allowed {
		t.Run("allows/"+tc.name, func(t *testing.T) {
			if err := inTransaction(t, c, tc.as, tc.sql); err != nil {
				t.Fatalf("as %s: %s: %v", tc.as, oneLine(tc.sql), err)
			}
		})
	}

	t.Run("allows/a role of one's own, across sessions", func(t *testing.T) {
		c.exec(t, "postgres", "postgres", "CREATE ROLE ledger_agent NOLOGIN; GRANT ledger_agent TO service_role")
		if !queryBool(t, admin, `SELECT EXISTS (SELECT 1 FROM pg_auth_members WHERE roleid = 'ledger_agent'::regrole
			AND member = 'postgres'::regrole AND admin_option AND grantor = $1::regrole)`, superuser) {
			t.Fatalf("creating ledger_agent did not make postgres its admin (grantor %s), as PostgreSQL 16 does", superuser)
		}
		// A rerun of a migration: the role exists already, and its creator still administers it.
		c.exec(t, "postgres", "postgres", `GRANT ledger_agent TO service_role;
			ALTER ROLE ledger_agent CONNECTION LIMIT 3; ALTER ROLE ledger_agent SET work_mem = '8MB';
			COMMENT ON ROLE ledger_agent IS 'the ledger''s role';
			ALTER ROLE ledger_agent RENAME TO ledger_agent_2; ALTER ROLE ledger_agent_2 RENAME TO ledger_agent`)
		c.exec(t, "postgres", "postgres", "REVOKE ledger_agent FROM service_role; DROP ROLE ledger_agent")
		if queryBool(t, admin, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_agent')") {
			t.Error("DROP ROLE ledger_agent left the role")
		}
	})

	t.Run("allows/a superuser's new role gets no implicit member", func(t *testing.T) {
		c.exec(t, superuser, "postgres", "CREATE ROLE made_by_superuser NOLOGIN")
		if queryBool(t, admin, "SELECT EXISTS (SELECT 1 FROM pg_auth_members WHERE roleid = 'made_by_superuser'::regrole)") {
			t.Error("a superuser's CREATE ROLE added a member")
		}
		c.exec(t, superuser, "postgres", "DROP ROLE made_by_superuser")
	})

	t.Run("allows/decision ledger port installs twice", func(t *testing.T) {
		installPortTwice(t, c)
		if !queryBool(t, admin, "SELECT pg_has_role('service_role', 'ledger_agent', 'MEMBER')") {
			t.Error("after the port, service_role is not a member of ledger_agent")
		}
	})
}

// installPortTwice creates a database with the Supabase environment and the Open Brain
// prerequisites at dimension 1024, as ledgercheck does, and installs
// migrations/ports/decision_ledger_1024.sql into it twice as postgres, each in a new session.
func installPortTwice(t *testing.T, c *cluster) {
	t.Helper()
	port, err := os.ReadFile("../../../migrations/ports/decision_ledger_1024.sql")
	if err != nil {
		t.Fatal(err)
	}
	c.exec(t, superuser, "postgres", "CREATE DATABASE ledger OWNER postgres")
	for _, s := range scratch.EnvironmentScripts("postgres", "supabase_admin") {
		c.exec(t, superuser, "ledger", s.SQL)
	}
	install := func(name string, sql []byte, dim int) {
		conn := c.connect(t, "postgres", "ledger")
		defer conn.Close(context.Background())
		if err := sqlscript.ExecConn(context.Background(), conn, name, sql, dim); err != nil {
			t.Fatalf("installing %s as postgres: %v", name, err)
		}
	}
	for _, p := range scratch.Prerequisites() {
		install("migrations/"+p.Name, []byte(p.SQL), 1024)
	}
	install("decision_ledger_1024.sql (first install)", port, 0)
	install("decision_ledger_1024.sql (second install)", port, 0)
}

// TestWithoutGuard: on PostgreSQL 15 without the module, every escalation of TestGuard works and
// every statement it refuses runs, so TestGuard would catch a guard that does nothing; and the
// module refuses to be loaded any other way than from shared_preload_libraries.
func TestWithoutGuard(t *testing.T) {
	c := startCluster(t, false)
	admin := c.connect(t, superuser, "postgres")

	for _, r := range serverRoles(c) {
		for _, v := range vectors {
			t.Run("escalation/"+v.name+"/"+r.role, func(t *testing.T) {
				t.Cleanup(func() {
					c.exec(t, superuser, "postgres", "REVOKE "+r.role+" FROM postgres")
					if r.file != "" {
						os.Remove(r.file)
					}
				})
				attackErr, probeErr := escalate(t, c, v.setup, v.attack, r)
				if attackErr != nil || probeErr != nil {
					t.Fatalf("attack: %v; probe: %v; want both to succeed without the guard", attackErr, probeErr)
				}
				if r.file != "" {
					b, err := os.ReadFile(r.file)
					if err != nil {
						t.Fatalf("the probe wrote no %s: %v", r.file, err)
					}
					if r.role == "pg_execute_server_program" && !strings.HasPrefix(string(b), "uid=") {
						t.Errorf("%s holds %q, want the output of id", r.file, b)
					}
				}
			})
		}
	}

	for _, tc := range refusals {
		t.Run("runs/"+tc.name, func(t *testing.T) {
			if err := inTransaction(t, c, tc.as, tc.sql); err != nil {
				t.Fatalf("as %s: %s: %v; PostgreSQL 15 refuses it by itself, so its refusal proves nothing about the guard", tc.as, oneLine(tc.sql), err)
			}
		})
	}

	t.Run("no version", func(t *testing.T) {
		var pe *pgconn.PgError
		if err := run(admin, "SHOW ledgercheck_guard.version"); !errors.As(err, &pe) || pe.Code != "42704" {
			t.Errorf("SHOW ledgercheck_guard.version without the module: %v, want unrecognized parameter (42704)", err)
		}
	})

	t.Run("LOAD refused", func(t *testing.T) {
		conn := c.connect(t, superuser, "postgres")
		err := run(conn, "LOAD 'ledgercheck_guard'")
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Message != "ledgercheck_guard must be loaded from shared_preload_libraries" {
			t.Fatalf("LOAD 'ledgercheck_guard': %v, want the module's refusal", err)
		}
	})
}
