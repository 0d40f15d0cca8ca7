package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	repo := t.TempDir()
	for _, d := range []string{".git", "migrations/ports"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(filepath.Join(repo, p), []byte("version: 2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	find := func(dir string) string {
		t.Helper()
		t.Chdir(filepath.Join(repo, dir))
		p, err := Find(".")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := find("migrations/ports"); p != "" {
		t.Errorf("no configuration: Find = %q", p)
	}
	// Above the repository root is another repository's business.
	if err := os.WriteFile(filepath.Join(filepath.Dir(repo), DefaultFile), []byte("version: 2\n"), 0o644); err == nil {
		defer os.Remove(filepath.Join(filepath.Dir(repo), DefaultFile))
		if p := find("migrations"); p != "" {
			t.Errorf("a configuration above the repository root was found: %q", p)
		}
	}
	write(DefaultFile)
	for dir, want := range map[string]string{
		".":                DefaultFile,
		"migrations":       "../" + DefaultFile,
		"migrations/ports": "../../" + DefaultFile,
	} {
		if p := find(dir); p != want {
			t.Errorf("from %s: Find = %q, want %q", dir, p, want)
		}
	}
	write("migrations/" + DefaultFile) // the nearest wins
	if p := find("migrations/ports"); p != "../"+DefaultFile {
		t.Errorf("nearest: Find = %q", p)
	}
	if p, err := Find(filepath.Join(repo, "migrations", "ports")); err != nil || p != filepath.Join(repo, "migrations", DefaultFile) {
		t.Errorf("absolute dir: Find = %q, %v", p, err)
	}
}
