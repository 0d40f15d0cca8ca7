package scratch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// A cache another user could have written is not used: a cache directory writable by others or
// owned by another user, and an entry one of whose files is, make the run say so in one line and
// go on without the cache (nothing is read from it, nothing written to it), and the server works.
func TestCacheOthersCouldWriteIsNotUsed(t *testing.T) {
	sharedBuild(t)
	for _, tc := range []struct {
		name, want string
		spoil      func(t *testing.T, root string)
	}{
		{"directory writable by others", "is writable by other users", func(t *testing.T, root string) {
			chmod(t, root, 0o777)
		}},
		{"directory owned by another user", "belongs to uid 65534", func(t *testing.T, root string) {
			if os.Geteuid() != 0 {
				t.Skip("giving a directory to another user needs root")
			}
			if err := os.Chown(root, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
		{"entry's manifest writable by its group", "manifest.json is writable by other users", func(t *testing.T, root string) {
			dirs, _ := entries(t, root)
			if len(dirs) != 1 {
				t.Fatalf("%d entries in the cache, want 1", len(dirs))
			}
			chmod(t, filepath.Join(dirs[0], "manifest.json"), 0o664)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "cache")
			if err := os.Mkdir(root, 0o700); err != nil {
				t.Fatal(err)
			}
			t.Setenv(scratch.CacheDirEnv, root)
			// The entry the run would start from, were the cache its user's alone (the shared
			// build's, copied): so that not starting from it is the cache refused.
			copyEntry(t, root)
			tc.spoil(t, root)
			before, _ := entries(t, root)
			srv, log := cachedStart(t)
			closeGone(t, srv)
			lines := strings.Count(log.String(), "scratch: not using the cache: ")
			if lines != 1 || !strings.Contains(log.String(), tc.want) {
				t.Errorf("the log says %d times that the cache is not used, want once with %q:\n%s", lines, tc.want, log.String())
			}
			if strings.Contains(log.String(), "from the cache") {
				t.Errorf("the run started from the cache:\n%s", log.String())
			}
			if after, _ := entries(t, root); len(after) != len(before) {
				t.Errorf("entries %v after the run, %v before: the run wrote to the cache", after, before)
			}
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
