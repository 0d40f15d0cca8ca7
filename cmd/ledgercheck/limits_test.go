package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/pgsql/pgsqltest"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// Linting the largest file ledgercheck reads, made of its smallest statements (4 MiB, about
// 420,000 of "SELECT 1;"), keeps the process under 50 times the file size (it took 1.4 GB once:
// the whole file parsed as one tree, a 384-byte op per statement).
func TestLintMemoryIsProportionalToTheFile(t *testing.T) {
	src := pgsqltest.TinyStatements(4 << 20)
	path := filepath.Join(t.TempDir(), "tiny.sql")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), "lint", "-q", path)
	cmd.Env = append(os.Environ(), "GOGC=") // ledgercheck's own setting, not the caller's
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "PASS: no findings in 1 file\n" {
		t.Fatalf("lint: %v, output %q; want exit 0 and no finding", err, out)
	}
	maxRSS := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("max RSS %d MiB for %d KiB of SQL", maxRSS>>20, len(src)>>10)
	if limit := 50 * int64(len(src)); maxRSS > limit {
		t.Errorf("max RSS %d MiB, want under 50 times the file: %d MiB", maxRSS>>20, limit>>20)
	}
}

// TestResourceLimitsAreFindings attacks each resource limit of the run the way a migration
// would, with small limits set by the test, through `lint --install`: each is a resource-limit
// finding at the statement that was running (exit 1, the JSON report written), and
// ledgercheck's own peak memory stays far below what the attack would have cost it.
func TestResourceLimitsAreFindings(t *testing.T) {
	scratchtest.NeedPostgres(t)
	for _, c := range []struct {
		name, flag, src, at string
	}{
		// 400 MB of rows into a 160 MB scratch directory (the cluster takes about 40).
		{"scratch", "--scratch-size=160MB",
			"CREATE TABLE public.bulk (x text);\nINSERT INTO public.bulk SELECT repeat('x', 1000) FROM generate_series(1, 400000);\n", ":2:1"},
		// An 800 MB aggregate in a server whose processes may have 320 MB.
		{"memory", "--server-memory=320MB",
			"CREATE TABLE public.t (x int);\nSELECT length(string_agg(repeat('x', 1000), '')) FROM generate_series(1, 800000);\n", ":2:1"},
		// 100 functions with 1 MB bodies built at run time: 100 MB of catalog, read in one
		// message, where ledgercheck reads at most 8 MB.
		{"catalog", "--read-size=8MB",
			"DO $$ BEGIN FOR i IN 1..100 LOOP\n  EXECUTE format('CREATE FUNCTION public.big%s() RETURNS text LANGUAGE sql AS %L', i, 'SELECT ' || quote_literal(repeat(md5(i::text), 31250)));\nEND LOOP; END $$;\nNOTIFY pgrst, 'reload schema';\n", ":4:1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name+".sql")
			if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(binary(t), "lint", "-q", "--install", "--no-cache", "--dim", "1024", "--format", "json", c.flag, path)
			cmd.Env = append(os.Environ(), "GOGC=")
			wantResourceLimit(t, cmd, path, c.at)
			maxRSS := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
			t.Logf("ledgercheck's max RSS %d MiB", maxRSS>>20)
			if maxRSS > 160<<20 {
				t.Errorf("ledgercheck's max RSS %d MiB, want under 160 MiB", maxRSS>>20)
			}
		})
	}
}

// findingAt reports whether the JSON report v holds a finding of rule whose position is at
// (":line:col").
func findingAt(v any, rule, at string) bool {
	switch x := v.(type) {
	case map[string]any:
		if x["rule"] == rule {
			if p, ok := x["position"].(map[string]any); ok && fmt.Sprintf(":%v:%v", p["line"], p["col"]) == at {
				return true
			}
		}
		for _, e := range x {
			if findingAt(e, rule, at) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if findingAt(e, rule, at) {
				return true
			}
		}
	}
	return false
}

// TestDigestLargerThanReadSizeIsAFinding: a migration that leaves 200,000 rows makes the rerun
// audit's content digest (row hashes kept in memory) larger than the 8 MB the run reads: a
// resource-limit finding at the file's last statement, exit 1 with the report, not the digest.
func TestDigestLargerThanReadSizeIsAFinding(t *testing.T) {
	scratchtest.NeedPostgres(t)
	path := filepath.Join(t.TempDir(), "many.sql")
	src := "CREATE TABLE IF NOT EXISTS public.many (id int);\nINSERT INTO public.many SELECT generate_series(1, 200000);\nNOTIFY pgrst, 'reload schema';\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), "rerun", "-q", "--no-fixture", "--format", "json", "--read-size=8MB", path)
	wantResourceLimit(t, cmd, path, ":3:1")
}

// wantResourceLimit runs cmd, which reports on path as JSON, and checks that it exits 1 with a
// resource-limit finding at path plus at (":line:col").
func wantResourceLimit(t *testing.T, cmd *exec.Cmd, path, at string) {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1; stderr %s; stdout:\n%s", err, stderr.String(), out)
	}
	var rep any
	if json.Unmarshal(out, &rep) != nil || !findingAt(rep, "resource-limit", at) {
		t.Errorf("no resource-limit finding at %s%s in the JSON report:\n%s", path, at, out)
	}
}
