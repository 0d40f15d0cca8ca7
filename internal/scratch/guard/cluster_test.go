package guard_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// pgBin holds Debian's PostgreSQL 15 server binaries; the guard exists for 15 only.
const pgBin = "/usr/lib/postgresql/15/bin"

// superuser is the bootstrap superuser initdb creates, named as on Supabase.
const superuser = "supabase_admin"

// guardSource is the module's source, whose digest the loaded module must report.
const guardSource = "c/ledgercheck_guard.c"

// cluster is a throwaway PostgreSQL 15 cluster of one test (a scratchtest.DSNServer whose
// bootstrap superuser is supabase_admin), listening on a unix socket only, with trust
// authentication and the Supabase roles.
type cluster struct {
	dir string // the server's directory: data/, the socket, the log and whatever probes write
}

// startCluster starts a server with ledgercheck_guard in shared_preload_libraries when guard is
// set, creates the roles of migrations/env/00_roles.sql and postgres shaped like Supabase's
// (NOSUPERUSER CREATEDB CREATEROLE BYPASSRLS, member of the API roles), plus two login roles for
// the tests, maker (CREATEROLE, not CREATEDB) and plain (no attributes), lets postgres create in
// schema public of database postgres, and puts a table there that only superusers and members of
// pg_read_all_data can read. Everything is stopped and removed when the test ends. When the
// server cannot be started (no PostgreSQL 15, no guard installed), the test is skipped, or fails
// under CI=true.
func startCluster(t *testing.T, guard bool) *cluster {
	t.Helper()
	if _, err := os.Stat(filepath.Join(pgBin, "postgres")); err != nil {
		scratchtest.Unavailable(t, fmt.Errorf("no PostgreSQL 15 server (%v): run `make setup` as root", err))
	}
	opts := scratchtest.DSNServerOptions{Superuser: superuser, PGBin: pgBin}
	if guard {
		opts.Preload = "ledgercheck_guard"
	}
	srv, err := scratchtest.StartDSNServer(opts)
	if err != nil {
		scratchtest.Unavailable(t, fmt.Errorf("%v (run `make setup` as root to install ledgercheck_guard)", err))
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stopping the server: %v", err)
		}
	})
	c := &cluster{dir: srv.Dir}
	c.exec(t, superuser, "postgres", scratch.RolesScript().SQL)
	c.exec(t, superuser, "postgres", `
		CREATE ROLE postgres LOGIN NOSUPERUSER CREATEDB CREATEROLE BYPASSRLS IN ROLE anon, authenticated, service_role;
		ALTER ROLE postgres SET search_path = "$user", public, extensions;
		CREATE ROLE maker LOGIN CREATEROLE NOCREATEDB;
		CREATE ROLE plain LOGIN;
		GRANT CREATE ON SCHEMA public TO postgres;
		CREATE TABLE public.secret (s text);
		INSERT INTO public.secret VALUES ('only for superusers and pg_read_all_data')`)
	return c
}

func (c *cluster) path(name string) string { return filepath.Join(c.dir, name) }

// config is the configuration to connect to database db as role user over the cluster's socket.
func (c *cluster) config(user, db string) *pgx.ConnConfig {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=5432 user=%s dbname=%s sslmode=disable", c.dir, user, db))
	if err != nil {
		panic(err) // a constant format with role and directory names of our own
	}
	return cfg
}

// connect opens a session as user in db, closed when the test ends.
func (c *cluster) connect(t *testing.T, user, db string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, c.config(user, db))
	if err != nil {
		t.Fatalf("connecting as %s: %v", user, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// exec runs sql (one or more statements) in a new session as user in db, failing the test on error.
func (c *cluster) exec(t *testing.T, user, db, sql string) {
	t.Helper()
	conn := c.connect(t, user, db)
	if err := run(conn, sql); err != nil {
		t.Fatalf("as %s: %s: %v", user, oneLine(sql), err)
	}
	conn.Close(context.Background())
}

// run runs sql (one or more statements, simple protocol) on conn.
func run(conn *pgx.Conn, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := conn.Exec(ctx, sql)
	return err
}

// queryBool runs a query that returns one boolean.
func queryBool(t *testing.T, conn *pgx.Conn, sql string, args ...any) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var b bool
	if err := conn.QueryRow(ctx, sql, args...).Scan(&b); err != nil {
		t.Fatalf("%s: %v", oneLine(sql), err)
	}
	return b
}

// sourceDigest is the digest setup passes to the build: the first 16 hex digits of the sha256 of
// the module's source.
func sourceDigest(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(guardSource)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

func oneLine(sql string) string { return strings.Join(strings.Fields(sql), " ") }
