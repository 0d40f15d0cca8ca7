// Package scratchtest gives a test package one embedded scratch cluster (started on the first
// test that asks for it, stopped by Main after the package's tests) and a fresh database per
// test, copied from the per-dimension template. A package whose selected tests need no cluster
// starts none.
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
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

var (
	inMain    bool // Main runs the package's tests
	startOnce sync.Once
	srv       *scratch.Server
	startErr  error
)

// Main runs the package's tests and then stops the scratch cluster if one of them started it
// ([Server] starts it on first use). Set LEDGERCHECK_TEST_DSN to run against an existing server
// instead (server mode).
func Main(m *testing.M) int {
	defer IsolateCache()()
	setTestGC()
	inMain = true
	code := StopSharedDSNServer(m.Run())
	startOnce.Do(func() {}) // no start after this point
	if srv != nil {
		dir := srv.Dir()
		pid := scratch.SandboxPID(dir)
		err := srv.Close()
		if err == nil {
			err = Gone(pid, dir)
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

// testGCPercent is the garbage collector's target in a test binary whose tests run gates in
// process (internal/cli, internal/gate, the corpus, ...), unless GOGC or GOMEMLIMIT is set. Such a
// binary allocates for a minute or more and keeps little: at Go's default of 100 it collected
// often enough that internal/cli's test binary spent 13.6 to 14.8 s of CPU of its own, at 400
// 11.9 to 12.5 s (three runs each, alternating, 2026-12-06), for a heap a few times larger. The
// ledgercheck processes the tests start keep the product's own setting (internal/cli's setGC).
const testGCPercent = 400

// setTestGC sets testGCPercent, unless the environment sets the collector.
func setTestGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(testGCPercent)
	}
}

// IsolateCache points the cache across runs ($LEDGERCHECK_CACHE_DIR) at a new temporary
// directory, unless it is set, so that the tests' runs neither use nor fill the user's; the
// function it returns removes that directory.
func IsolateCache() func() {
	if os.Getenv(scratch.CacheDirEnv) != "" {
		return func() {}
	}
	dir, err := os.MkdirTemp("", "lc-test-cache-")
	if err != nil {
		return func() {}
	}
	os.Setenv(scratch.CacheDirEnv, dir)
	return func() { os.RemoveAll(dir) }
}

// Server returns the package's server, started by the first call, skipping (or, under CI=true,
// failing) the test when it could not be started.
func Server(t testing.TB) *scratch.Server {
	t.Helper()
	if !inMain {
		t.Fatal("scratchtest: Server called without scratchtest.Main in TestMain")
	}
	startOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		srv, startErr = scratch.Start(ctx, scratch.Options{DSN: os.Getenv("LEDGERCHECK_TEST_DSN")})
	})
	if srv == nil {
		err := startErr
		if err == nil {
			err = errors.New("the package's tests are over")
		}
		Unavailable(t, err)
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

// Connect opens a connection to db as the install role, closed when the test ends. It is the
// test's own session, which scripts do not wait for ([scratch.Database.Connect] opens one they
// wait for): a test may hold it while it runs scripts.
func Connect(t testing.TB, db *scratch.Database) *pgx.Conn {
	t.Helper()
	return closedAtEnd(t)(pgx.ConnectConfig(context.Background(), db.ConnConfig()))
}

// ConnectAdmin opens a connection to db as the superuser (a privileged session, as
// ledgercheck's own reads use), closed when the test ends.
func ConnectAdmin(t testing.TB, db *scratch.Database) *pgx.Conn {
	t.Helper()
	return closedAtEnd(t)(db.ConnectAdmin(context.Background()))
}

// closedAtEnd returns a function that fails t on a connection's error, or closes the connection
// when the test ends.
func closedAtEnd(t testing.TB) func(*pgx.Conn, error) *pgx.Conn {
	return func(conn *pgx.Conn, err error) *pgx.Conn {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		return conn
	}
}

// Exec runs a script (statement by statement, `:dim` substituted) in db, failing the test on error.
func Exec(t testing.TB, db *scratch.Database, name, sql string) {
	t.Helper()
	if err := sqlscript.ExecFile(context.Background(), db, name, []byte(sql)); err != nil {
		t.Fatalf("%v", err)
	}
}

// Gone waits up to 10 s for the postmaster pid (0: none) to exit, then reports an error if it is
// still running or, when dir is not empty, if the cluster directory still exists.
func Gone(pid int, dir string) error {
	if pid > 0 {
		deadline := time.Now().Add(10 * time.Second)
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(deadline) {
				return fmt.Errorf("postmaster %d is still running", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if dir != "" {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			return fmt.Errorf("cluster directory %s is still there", dir)
		}
	}
	return nil
}

// Unavailable handles a test that needs Postgres when it cannot have it (err says why): it
// fails when the environment variable CI is "true", so CI never passes by skipping, and skips
// otherwise.
func Unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("Postgres is required (CI=true): %v", err)
	}
	t.Skipf("Postgres not available: %v", err)
}

// NeedPostgres calls [Unavailable] unless an embedded cluster can start: the PostgreSQL server
// binaries can be found and bubblewrap, its sandbox, is installed. It is for tests that start
// clusters of their own (or run the ledgercheck binary, or a --dsn server scratchtest starts).
func NeedPostgres(t testing.TB) {
	t.Helper()
	if _, err := scratch.FindBinDir("", 0); err != nil {
		Unavailable(t, err)
	}
	if err := scratch.CheckSandbox(); err != nil {
		Unavailable(t, err)
	}
}

// Major returns the PostgreSQL major version the tests run on when they start servers of their
// own (or run the ledgercheck binary): the version $LEDGERCHECK_PG asks for, else that of the
// server binaries scratch.FindBinDir finds. It calls [Unavailable] when there are none.
func Major(t testing.TB) int {
	t.Helper()
	NeedPostgres(t)
	bin, err := scratch.FindBinDir("", 0)
	if err != nil {
		Unavailable(t, err)
	}
	major, err := scratch.BinMajor(bin)
	if err != nil {
		Unavailable(t, err)
	}
	return major
}
