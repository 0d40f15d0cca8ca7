package scratchtest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// Deploy creates the database name on s and sets it up the way a Supabase project is deployed:
// the Supabase environment (postgres as the role migrations run as, supabase_admin as the
// superuser, as on Supabase), the Open Brain prerequisites at dim, then each migration file in
// order, all run as the server's bootstrap superuser, postgres (as a deployment that runs
// migrations as the database owner would). It returns a DSN for the database as that
// superuser; the database lives as long as the server.
func (s *DSNServer) Deploy(t testing.TB, name string, dim int, files ...string) string {
	t.Helper()
	ctx := context.Background()
	admin := s.Conn(t)
	for _, sql := range []string{
		`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_admin') THEN CREATE ROLE supabase_admin; END IF; END $$`,
		scratch.RolesScript().SQL,
		"CREATE DATABASE " + pgx.Identifier{name}.Sanitize(),
	} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("deploying %s: %v", name, err)
		}
	}
	cfg, err := pgx.ParseConfig(s.DSNOf(s.superuser(t), name))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["search_path"] = `"$user", public, extensions`
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sc := range append(scratch.EnvironmentScripts("postgres", "supabase_admin"), scratch.Prerequisites()...) {
		if _, err := conn.Exec(ctx, scratch.SubstituteDim(sc.SQL, dim)); err != nil {
			t.Fatalf("deploying %s: internal/scratch/%s: %v", name, sc.Name, err)
		}
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := sqlscript.Parse(file, src, dim)
		if err != nil {
			t.Fatal(err)
		}
		if err := scratch.ExecScript(ctx, conn, sqlscript.Script(f)); err != nil {
			t.Fatalf("deploying %s: %v", name, err)
		}
	}
	return s.DSNOf(cfg.User, name)
}

// DSNOf returns a DSN for database db on s as role user (trusted on the server's socket).
func (s *DSNServer) DSNOf(user, db string) string {
	return fmt.Sprintf("host=%s port=5432 user=%s dbname=%s", s.Dir, user, db)
}

// ConnTo connects to database db on s as the superuser, closed when t ends.
func (s *DSNServer) ConnTo(t testing.TB, db string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), s.DSNOf(s.superuser(t), db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// superuser is the name of s's bootstrap superuser.
func (s *DSNServer) superuser(t testing.TB) string {
	cfg, err := pgx.ParseConfig(s.DSN)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.User
}
