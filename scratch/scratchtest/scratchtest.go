// Package scratchtest gives a test package one embedded scratch cluster (started in TestMain)
// and a fresh database per test, copied from the per-dimension template.
//
//	func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }
//
//	func TestX(t *testing.T) {
//		db := scratchtest.NewDatabase(t, 1536)
//		...
//	}
//
// When Postgres cannot be started, tests that need it are skipped locally, and fail when the
// environment variable CI is "true", so that CI can never pass by skipping them. After the
// package's tests, Main stops the cluster and fails the package if its postmaster is still
// running or its directory still exists.
package scratchtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgercheck/scratch"
)

var (
	srv      *scratch.Server
	startErr error
)

// Main starts the package's scratch cluster, runs the tests and stops the cluster. Set
// LEDGERCHECK_TEST_DSN to run against an existing server instead (server mode).
func Main(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, startErr = scratch.Start(ctx, scratch.Options{DSN: os.Getenv("LEDGERCHECK_TEST_DSN")})
	cancel()
	if startErr != nil && os.Getenv("CI") == "true" {
		fmt.Fprintf(os.Stderr, "scratchtest: CI=true and Postgres could not be started: %v\n", startErr)
		return 1
	}
	code := m.Run()
	if srv != nil {
		dir := srv.Dir()
		pid := postmasterPID(dir)
		err := srv.Close()
		if err == nil {
			err = leftovers(dir, pid)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "scratchtest: stopping the scratch cluster: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Server returns the package's server, skipping (or, under CI=true, failing) the test when it
// could not be started.
func Server(t testing.TB) *scratch.Server {
	t.Helper()
	if srv == nil {
		if startErr == nil {
			t.Fatal("scratchtest: Server called without scratchtest.Main in TestMain")
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("Postgres is required (CI=true): %v", startErr)
		}
		t.Skipf("Postgres not available: %v", startErr)
	}
	return srv
}

// NewDatabase returns a fresh database with the environment and the prerequisites at dim,
// dropped when the test ends.
func NewDatabase(t testing.TB, dim int) *scratch.Database {
	t.Helper()
	s := Server(t)
	db, err := s.NewDatabase(context.Background(), dim)
	if err != nil {
		t.Fatalf("creating a scratch database at dimension %d: %v", dim, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := db.Drop(ctx); err != nil {
			t.Errorf("dropping %s: %v", db.Name, err)
		}
	})
	return db
}

// Connect opens a connection to db as the install role, closed when the test ends.
func Connect(t testing.TB, db *scratch.Database) *pgx.Conn {
	t.Helper()
	conn, err := db.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// Exec runs a script (statement by statement, `:dim` substituted) in db, failing the test on error.
func Exec(t testing.TB, db *scratch.Database, name, sql string) {
	t.Helper()
	if err := db.ExecFile(context.Background(), name, []byte(sql)); err != nil {
		t.Fatalf("%v", err)
	}
}

// postmasterPID reads the embedded cluster's postmaster PID (0 in server mode or if unknown).
func postmasterPID(dir string) int {
	if dir == "" {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	return pid
}

// leftovers reports an embedded cluster that Close did not remove: its postmaster still running
// or its directory still there. Every test package checks this once its tests are done.
func leftovers(dir string, pid int) error {
	if dir == "" {
		return nil
	}
	if pid > 0 {
		deadline := time.Now().Add(5 * time.Second)
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(deadline) {
				return fmt.Errorf("postmaster %d is still running after Close", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		return fmt.Errorf("cluster directory %s is still there after Close", dir)
	}
	return nil
}
