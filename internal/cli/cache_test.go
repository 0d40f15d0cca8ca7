package cli

import (
	"os"
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
	if code, _, errs := runCLI(t, "check", "-q", "--no-cache", "--config", repoConfig); code != ExitOK {
		t.Fatalf("check --no-cache: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("check --no-cache made the cache %s (%v)", dir, err)
	}
	if code, out, errs := runCLI(t, "cache"); code != ExitOK || out != dir+"\n0 entries, 0 bytes\n" {
		t.Errorf("cache: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := runCLI(t, "check", "-q", "--config", repoConfig); code != ExitOK {
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
