package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// check --no-cache neither reads nor writes the cache; check writes it; cache prints where it
// is and how large; cache clean removes it.
func TestCacheCommandAndNoCache(t *testing.T) {
	scratchtest.NeedPostgres(t)
	dir := t.TempDir() + "/cache"
	t.Setenv(scratch.CacheDirEnv, dir)
	// The smallest check that uses the cache (a cluster and a template): one clean file, no
	// port, installed once. The repository's configuration would check the ledger and its port
	// twice for the same cache behaviour.
	artifact := writeSQL(t, "notes.sql", cleanSQL)
	config := filepath.Join(filepath.Dir(artifact), "ledgercheck.yaml")
	if err := os.WriteFile(config, []byte("version: 2\nartifact: {file: notes.sql, dim: 1536}\nprerequisites: {openbrain: false}\nrerun: {times: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "check", "-q", "--no-cache", "--config", config); code != ExitOK {
		t.Fatalf("check --no-cache: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("check --no-cache made the cache %s (%v)", dir, err)
	}
	if code, out, errs := runCLI(t, "cache"); code != ExitOK || out != dir+"\n0 entries, 0 bytes\n" {
		t.Errorf("cache: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := runCLI(t, "check", "-q", "--config", config); code != ExitOK {
		t.Fatalf("check: exit %d: %s", code, errs)
	}
	code, out, _ := runCLI(t, "cache", "info")
	if code != ExitOK || !strings.HasPrefix(out, dir+"\n1 entries, ") || !strings.HasSuffix(out, " MB\n") {
		t.Errorf("cache info after check: exit %d, stdout %q", code, out)
	}
	if code, _, errs := runCLI(t, "cache", "clean"); code != ExitOK {
		t.Errorf("cache clean: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cache clean left %s (%v)", dir, err)
	}
}
