package scratch_test

// Faults of the environment are exit 3 with the server's own words, and a server that logs
// without end costs a bounded amount of memory.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// TestServerLogIsBounded: 100 warnings of 1 MB each reach the server log; ledgercheck keeps only
// its last 64 KiB.
func TestServerLogIsBounded(t *testing.T) {
	s := scratchtest.Server(t)
	if !s.Embedded() {
		t.Skip("the log of a --dsn server is not ledgercheck's")
	}
	db := scratchtest.NewDatabase(t, 1024)
	scratchtest.Exec(t, db, "loud.sql", `DO $$ BEGIN FOR i IN 1..100 LOOP RAISE WARNING '%', repeat('x', 1000000); END LOOP; END $$;`)
	if n := s.LogBytes(); n > 64<<10 {
		t.Errorf("%d bytes of server log kept in memory, want at most 64 KiB", n)
	}
}

// tinyFS mounts a tmpfs of size bytes for the scratch clusters of the test (root only).
func tinyFS(t *testing.T, size string) {
	t.Helper()
	scratchtest.NeedPostgres(t)
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system needs root")
	}
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755) // the sandbox's own user must reach its directory
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	t.Setenv("LEDGERCHECK_TMPDIR", dir)
}

// TestFullDiskAtInitdb: initdb on a full disk says so, in either of PostgreSQL's words for it:
// the system's (a write that wrote nothing) or its own when a write was cut short ("could not
// extend file ...: wrote only 4096 of 8192 bytes"); which one depends on how many bytes were
// left.
func TestFullDiskAtInitdb(t *testing.T) {
	tinyFS(t, "4m")
	_, err := scratch.Start(context.Background(), scratch.Options{})
	if fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), "No space left on device") &&
		!regexp.MustCompile(`could not extend file "[^"]+": wrote only \d+ of \d+ bytes`).MatchString(err.Error()) {
		t.Errorf("got %v, want an environment error with initdb's own words", err)
	}
}

// TestFullDiskDuringInstall: a statement that fills the disk is the environment's failure, with
// the statement's position and what the server said. Which write meets the full disk first is a
// race between the table's file (an error, SQLSTATE 53100) and a new WAL segment (the WAL writer
// or the backend PANICs, and the server restarts): either way the run says so at the statement.
func TestFullDiskDuringInstall(t *testing.T) {
	tinyFS(t, "80m")
	ctx := context.Background()
	s, err := scratch.Start(ctx, scratch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := s.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = sqlscript.ExecFile(ctx, db, "big.sql", []byte("SELECT 1;\nCREATE TABLE public.big AS SELECT repeat('x', 1000) AS x FROM generate_series(1, 200000);\n"))
	var se *scratch.ScriptError
	if errors.As(err, &se) || fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), "big.sql:2:1") ||
		!strings.Contains(err.Error(), "53100") && !strings.Contains(err.Error(), "No space left on device") {
		t.Errorf("got %v, want an environment error at big.sql:2:1 with SQLSTATE 53100 or the server's \"No space left on device\" (disk full)", err)
	}
}

// TestSocketPathTooLong: a scratch directory whose socket path would exceed the limit of unix
// socket paths is refused with one line that says what to do.
func TestSocketPathTooLong(t *testing.T) {
	scratchtest.NeedPostgres(t)
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 40))
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LEDGERCHECK_TMPDIR", long)
	_, err := scratch.Start(context.Background(), scratch.Options{})
	if fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), "LEDGERCHECK_TMPDIR") || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %v, want one environment error line naming LEDGERCHECK_TMPDIR", err)
	}
}

// TestScratchDirOthersCannotEnter: as root, the sandboxed server runs as a user of its own, which
// must be able to reach its directory; a LEDGERCHECK_TMPDIR below a private directory is refused
// with one line that says what to do.
func TestScratchDirOthersCannotEnter(t *testing.T) {
	scratchtest.NeedPostgres(t)
	if os.Geteuid() != 0 {
		t.Skip("only root's runs use a user of their own")
	}
	private := t.TempDir()
	os.Chmod(private, 0o700)
	dir := filepath.Join(private, "work")
	os.Mkdir(dir, 0o755)
	t.Setenv("LEDGERCHECK_TMPDIR", dir)
	_, err := scratch.Start(context.Background(), scratch.Options{})
	if fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), "others may enter") {
		t.Errorf("got %v, want an environment error saying where others may not enter", err)
	}
}

// TestUserSQLCannotPassForACrash: a session that user SQL ended itself is the SQL's failure, even
// when the SQL first wrote, into the server's log, lines that look like a crash (a PANIC and the
// postmaster's restart): the server indents every further line of a message, and only a line's
// start counts as the server's own.
func TestUserSQLCannotPassForACrash(t *testing.T) {
	s := scratchtest.Server(t)
	if !s.Embedded() {
		t.Skip("the log of a --dsn server is not ledgercheck's")
	}
	db := scratchtest.NewDatabase(t, 1024)
	err := sqlscript.ExecFile(context.Background(), db, "fake.sql", []byte(`DO $$ BEGIN
  RAISE LOG E'x\n2026-01-01 00:00:00.000 UTC [7] PANIC:  could not write to file "pg_wal/x": No space left on device\n2026-01-01 00:00:00.000 UTC [2] LOG:  terminating any other active server processes';
END $$;
SET ROLE NONE; -- its database's login role, which may end its own session
SELECT pg_terminate_backend(pg_backend_pid());
`))
	var se *scratch.ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message(), "57P01") {
		t.Errorf("got %v, want the SQL's failure at fake.sql:5 (its session was terminated, 57P01)", err)
	}
}

// TestConnectingToADeadServerSaysItDied: a server killed before a session could open (the
// install's, a reader's, the observer's) is exit 3 saying the scratch server died, with what it
// logged last, not a bare "connection refused".
func TestConnectingToADeadServerSaysItDied(t *testing.T) {
	scratchtest.NeedPostgres(t)
	ctx := context.Background()
	s, err := scratch.Start(ctx, scratch.Options{Cache: true})
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	defer s.Close()
	db, err := s.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pid := scratch.SandboxPID(s.Dir())
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := scratchtest.Gone(pid, ""); err != nil {
		t.Fatal(err)
	}
	for name, connect := range map[string]func(context.Context) (*pgx.Conn, error){
		"install role": db.Connect, "superuser": db.ConnectAdmin, "reader": db.ConnectReader, "observer": db.ConnectObserver,
	} {
		conn, err := connect(ctx)
		if err == nil {
			conn.Close(ctx)
			t.Fatalf("%s: connected to a killed server", name)
		}
		if fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), "the scratch server died while connecting to "+db.Name) {
			t.Errorf("%s: got %v, want an environment error saying the server died while connecting to %s", name, err, db.Name)
		}
	}
}
