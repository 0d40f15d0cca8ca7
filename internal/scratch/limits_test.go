package scratch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// TestTimeLimitsStopRunawayMigrations: an endless loop is stopped by statement_timeout and a
// migration of many slow statements by the install time limit, each reported at its statement.
// The statement each stopped at is the bound: the loop never ends by itself, and the fourth
// sleep is never run. (No wall-clock assertion: under load a limit fires late, never early.)
// Parallel: most of its time is the limits' wait (two seconds of pg_sleep).
func TestTimeLimitsStopRunawayMigrations(t *testing.T) {
	t.Parallel()
	scratchtest.Server(t)
	ctx := context.Background()
	s, err := scratch.Start(ctx, scratch.Options{Cache: true, StatementTimeout: time.Second, InstallTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := s.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}

	err = sqlscript.ExecFile(ctx, db, "loop.sql", []byte("SELECT 1;\nDO $$ BEGIN LOOP END LOOP; END $$;\n"))
	var se *scratch.ScriptError
	if !errors.As(err, &se) || se.PgError() == nil || se.PgError().Code != "57014" || se.Pos.String() != "loop.sql:2:1" {
		t.Errorf("endless loop: got %v, want a statement timeout (57014) at loop.sql:2:1", err)
	}

	err = sqlscript.ExecFile(ctx, db, "slow.sql", []byte("SELECT pg_sleep(0.8);\nSELECT pg_sleep(0.8);\nSELECT pg_sleep(0.8);\nSELECT pg_sleep(0.8);\n"))
	if !errors.As(err, &se) || se.Pos.Line != 3 || se.SelfInflicted() == nil || !se.SelfInflicted().Timeout || !strings.Contains(se.Error(), "install time limit of 2s") {
		t.Errorf("slow migration: got %v, want the install time limit at slow.sql:3:1", err)
	}
}

// limited starts an embedded cluster with the resource limits l and returns it with an
// environment database.
func limited(t *testing.T, l scratch.Limits) (*scratch.Server, *scratch.Database) {
	t.Helper()
	scratchtest.NeedPostgres(t)
	ctx := context.Background()
	s, err := scratch.Start(ctx, scratch.Options{Cache: true, Limits: l})
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	t.Cleanup(func() { s.Close() })
	db, err := s.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s, db
}

// wantLimit checks that err is a resource-limit ScriptError of limit at pos.
func wantLimit(t *testing.T, err error, limit, pos string) {
	t.Helper()
	var se *scratch.ScriptError
	if !errors.As(err, &se) || se.Limit != limit || se.Pos.String() != pos {
		t.Fatalf("got %v (%T), want the %s limit at %s", err, err, limit, pos)
	}
}

// TestScratchSizeLimitStopsABulkInsert: with the scratch directory capped at 192 MiB (a
// cluster with the environment takes about 40), one INSERT of 400 MB from generate_series is a
// resource-limit finding at its statement; the directory never grows to half as much again as
// the cap (where the watchdog would kill the sandbox); the server lives on, and once the
// database is dropped the run goes on.
func TestScratchSizeLimitStopsABulkInsert(t *testing.T) {
	const limit = 192 << 20
	s, db := limited(t, scratch.Limits{ScratchSize: limit})
	ctx := context.Background()
	var peak atomic.Int64
	done := make(chan struct{})
	go func() { // the directory's size as the host sees it, while the statement runs
		for {
			peak.Store(max(peak.Load(), scratch.DirUsage(s.Dir())))
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	err := sqlscript.ExecFile(ctx, db, "bulk.sql", []byte("CREATE TABLE t (x text);\n\nINSERT INTO t SELECT repeat('x', 1000) FROM generate_series(1, 400000);\n"))
	close(done)
	wantLimit(t, err, scratch.LimitScratchSize, "bulk.sql:3:1")
	if p := peak.Load(); p > limit+limit/2 {
		t.Errorf("the scratch directory reached %d MiB, half as much again as the %d MiB limit", p>>20, limit>>20)
	}
	if !strings.Contains(err.Error(), "192 MiB") {
		t.Errorf("the finding does not say the limit: %v", err)
	}
	// The run goes on: another database, once the one that holds the rows is gone.
	if err := db.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	db2, err := s.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlscript.ExecFile(ctx, db2, "after.sql", []byte("CREATE TABLE u (x int);\nINSERT INTO u SELECT generate_series(1, 1000);\n")); err != nil {
		t.Errorf("after the database was dropped: %v", err)
	}
}

// TestScratchSizeLimitBoundsEachFile: temporary files are bounded by temp_file_limit, half the
// cap, which user SQL cannot raise (a sort that spills 200 MB where 96 MiB may be spilt is a
// finding in the server's words), and every process of the sandbox may write no file larger
// than the cap (RLIMIT_FSIZE, which the kernel enforces; the server ignores SIGXFSZ, so such a
// write fails as an error).
func TestScratchSizeLimitBoundsEachFile(t *testing.T) {
	const limit = 192 << 20
	s, db := limited(t, scratch.Limits{ScratchSize: limit})
	ctx := context.Background()
	err := sqlscript.ExecFile(ctx, db, "sort.sql", []byte("SET work_mem = '64kB';\nSELECT count(*) FROM (SELECT repeat('x', 100) || g FROM generate_series(1, 2000000) g ORDER BY 1) s;\n"))
	wantLimit(t, err, scratch.LimitScratchSize, "sort.sql:2:1")
	if !strings.Contains(err.Error(), "temp_file_limit") {
		t.Errorf("the sort's finding does not name temp_file_limit: %v", err)
	}
	err = sqlscript.ExecFile(ctx, db, "raise.sql", []byte("SET temp_file_limit = -1;\n"))
	var se *scratch.ScriptError
	if !errors.As(err, &se) || se.PgError() == nil || se.PgError().Code != "42501" {
		t.Errorf("user SQL raising temp_file_limit: %v, want a permission error", err)
	}
	for _, pid := range s.SandboxProcesses() {
		for _, l := range procLines(pid, "limits", "Max file size") {
			if f := strings.Fields(l); len(f) < 5 || f[3] != strconv.Itoa(limit) {
				t.Errorf("process %d: %q, want a file size limit of %d", pid, l, limit)
			}
		}
	}
}

// TestServerMemoryLimitStopsAnAllocation: with each server process capped at 320 MiB, an
// aggregate of 800 MB is the server's out-of-memory error, a resource-limit finding at its
// statement; no process of the sandbox ever had more address space than the cap, and the server
// lives on.
func TestServerMemoryLimitStopsAnAllocation(t *testing.T) {
	const limit = 320 << 20
	s, db := limited(t, scratch.Limits{ServerMemory: limit})
	ctx := context.Background()
	err := sqlscript.ExecFile(ctx, db, "agg.sql", []byte("SELECT 1;\nSELECT length(string_agg(repeat('x', 1000), '')) FROM generate_series(1, 800000);\n"))
	wantLimit(t, err, scratch.LimitServerMemory, "agg.sql:2:1")
	pids := s.SandboxProcesses()
	if len(pids) < 3 {
		t.Fatalf("sandbox processes: %v, want the init, the postmaster and its workers", pids)
	}
	for _, pid := range pids {
		for _, l := range procLines(pid, "status", "VmPeak:") {
			if f := strings.Fields(l); len(f) == 3 {
				if kb, _ := strconv.ParseInt(f[1], 10, 64); kb<<10 > limit {
					t.Errorf("process %d had %d MiB of address space, more than the %d MiB limit", pid, kb>>10, limit>>20)
				}
			}
		}
	}
	if err := sqlscript.ExecFile(ctx, db, "after.sql", []byte("SELECT 1;\n")); err != nil {
		t.Errorf("after the limit: %v", err)
	}
}

// TestReadSizeLimitStopsAHugeRow: a statement that returns a row larger than what ledgercheck
// reads (4 MiB here) is a resource-limit finding at its statement, and ledgercheck's memory
// does not grow by the row's 64 MB.
func TestReadSizeLimitStopsAHugeRow(t *testing.T) {
	_, db := limited(t, scratch.Limits{ReadSize: 4 << 20})
	ctx := context.Background()
	before := maxRSS(t)
	err := sqlscript.ExecFile(ctx, db, "row.sql", []byte("SELECT 1;\nSELECT repeat('x', 64 << 20);\n"))
	wantLimit(t, err, scratch.LimitReadSize, "row.sql:2:1")
	if grew := maxRSS(t) - before; grew > 32<<20 {
		t.Errorf("ledgercheck's peak memory grew by %d MiB reading past the limit", grew>>20)
	}
}

// maxRSS returns the process's peak resident memory (VmHWM) in bytes.
func maxRSS(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// procLines returns the lines of /proc/PID/name that start with prefix (none once the process
// is gone).
func procLines(pid int, name, prefix string) []string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, name))
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}
