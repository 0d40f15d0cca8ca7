package scratch

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRegularBytesFollowsNothing: the size pack reserves for a cluster's files counts its regular
// files and opens or follows nothing else: links to large files outside the cluster and beside
// its data directory, a link to a directory and a FIFO a server could leave count for nothing,
// and reading them does not block.
func TestRegularBytesFollowsNothing(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(filepath.Join(data, "base", "5"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, size := range map[string]int{"PG_VERSION": 3, "base/5/1259": 8192} {
		if err := os.WriteFile(filepath.Join(data, name), make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	big, near := filepath.Join(outside, "big"), filepath.Join(dir, "big") // beside data, inside the root
	for _, f := range []string{big, near} {
		if err := os.WriteFile(f, make([]byte, 1<<20), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rel, err := filepath.Rel(filepath.Join(data, "base", "5"), near) // a relative link, followable inside the root
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		os.Symlink(big, filepath.Join(data, "base", "5", "2619")),
		os.Symlink(rel, filepath.Join(data, "base", "5", "2620")),
		os.Symlink(outside, filepath.Join(data, "pg_tblspc")),
		syscall.Mkfifo(filepath.Join(data, "base", "5", "pipe"), 0o600),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if got, want := regularBytes(root.FS()), int64(3+8192); got != want {
		t.Errorf("regularBytes = %d, want %d (the regular files alone)", got, want)
	}
}
