package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"ledgercheck/internal/pgsql/pgsqltest"
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
	if err != nil || len(out) != 0 {
		t.Fatalf("lint: %v, output %q; want exit 0 and no finding", err, out)
	}
	maxRSS := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("max RSS %d MiB for %d KiB of SQL", maxRSS>>20, len(src)>>10)
	if limit := 50 * int64(len(src)); maxRSS > limit {
		t.Errorf("max RSS %d MiB, want under 50 times the file: %d MiB", maxRSS>>20, limit>>20)
	}
}
