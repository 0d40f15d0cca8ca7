package cli

// Hardening: a panic is one line and still cleans up; bad input of every kind is one line with
// the documented exit code, never a panic or a Go stack trace.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"ledgercheck/scratch"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if host != nil {
		host.Close()
	}
	os.Exit(code)
}

var (
	hostOnce sync.Once
	host     *scratch.Server
	hostErr  error
)

// hostDSN returns a DSN for the maintenance database of an embedded cluster shared by this
// package's tests, standing in for a --dsn server.
func hostDSN(t *testing.T, extra string) string {
	t.Helper()
	hostOnce.Do(func() { host, hostErr = scratch.Start(context.Background(), scratch.Options{}) })
	if hostErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Postgres is required (CI=true): %v", hostErr)
		}
		t.Skipf("Postgres not available: %v", hostErr)
	}
	db, err := host.NewEnvDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cfg := db.ConnConfig()
	db.Drop(context.Background())
	return fmt.Sprintf("host=%s port=%d user=supabase_admin dbname=postgres%s", cfg.Host, cfg.Port, extra)
}

// scratchDatabases lists the databases named ledgercheck_* on the server of dsn.
func scratchDatabases(t *testing.T, dsn string) []string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, _ := conn.Query(context.Background(), `SELECT datname FROM pg_database WHERE datname LIKE 'ledgercheck\_%' ORDER BY 1`)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// panicAfter is what the test-only command "test-panic" saw before it panicked.
var panicAfter struct {
	dir string
	db  string
}

// test-panic starts a scratch server the way every command does (defer srv.Close()), creates a
// database and panics in the command's goroutine.
func init() {
	register(1000, func(g *globals) *cobra.Command {
		var sf serverFlags
		cmd := &cobra.Command{Use: "test-panic", Hidden: true, RunE: func(cmd *cobra.Command, _ []string) error {
			srv, err := g.startServer(cmd.Context(), &sf)
			if err != nil {
				return err
			}
			defer srv.Close()
			db, err := srv.NewEnvDatabase(cmd.Context())
			if err != nil {
				return err
			}
			panicAfter.dir, panicAfter.db = srv.Dir(), db.Name
			var m map[string]bool
			m[db.Name] = true // assignment to entry in nil map
			return nil
		}}
		addServerFlags(cmd, &sf)
		return cmd
	})
}

// A panic in a command is recovered by Run: the deferred cleanups run (the embedded cluster is
// stopped and removed; on a --dsn server the database is dropped), and the panic is one line,
// exit 3, without a stack trace.
func TestPanicIsOneLineAndCleansUp(t *testing.T) {
	dsn := hostDSN(t, "")
	for _, mode := range []string{"embedded", "dsn"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"test-panic", "-q"}
			if mode == "dsn" {
				args = append(args, "--dsn", dsn)
			}
			panicAfter.dir, panicAfter.db = "", ""
			code, out, errs := runCLI(t, args...)
			if code != ExitEnv || out != "" || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "goroutine") ||
				!strings.HasPrefix(errs, "ledgercheck: internal error: assignment to entry in nil map (in cli.init.") || !strings.Contains(errs, "please report") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 3 and one internal error line", code, out, errs)
			}
			if panicAfter.db == "" {
				t.Fatal("the command did not get as far as its panic")
			}
			if mode == "embedded" {
				if _, err := os.Stat(panicAfter.dir); !os.IsNotExist(err) {
					t.Errorf("cluster directory %s remains after the panic", panicAfter.dir)
				}
			} else if dbs := scratchDatabases(t, dsn); len(dbs) != 0 {
				t.Errorf("databases %v remain on the --dsn server after the panic", dbs)
			}
		})
	}
}
