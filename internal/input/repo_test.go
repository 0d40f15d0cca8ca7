package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScope: a path inside the root that leads out (a link to a file, to a directory on the way,
// a dangling link, a chain of links) is refused; one that stays inside is not; a loop of links
// is an error, not a hang; a path outside the root as written is the user's unless a
// configuration names it; AllowOutside and the zero Scope confine nothing.
func TestScope(t *testing.T) {
	base := t.TempDir()
	root, out := filepath.Join(base, "repo"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(root, ".git"), filepath.Join(root, "sub"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "in.sql"), filepath.Join(out, "x.sql")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"to-out.sql": filepath.Join(out, "x.sql"), "dir": out, "dangling.sql": filepath.Join(out, "none.sql"),
		"chain.sql": "to-out.sql", "stays.sql": "in.sql", "loop1": "loop2", "loop2": "loop1", "sub/up.sql": "../in.sql",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if got := RepoRoot(filepath.Join(root, "sub")); got != root {
		t.Errorf("RepoRoot(sub) = %s, want %s", got, root)
	}
	s := Scope{Root: root}
	for _, tc := range []struct {
		path string
		want string // "" for accepted
	}{
		{"in.sql", ""}, {"stays.sql", ""}, {"sub/up.sql", ""}, {"missing.sql", ""},
		{"to-out.sql", "through a symbolic link"}, {"dir/x.sql", "through a symbolic link"},
		{"dangling.sql", "through a symbolic link"}, {"chain.sql", "through a symbolic link"},
		{"loop1", "too many levels of symbolic links"},
		{filepath.Join(out, "x.sql"), ""}, // typed, outside as written
	} {
		p := tc.path
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		err := s.Confine(p)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Confine(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if err := s.ConfineConfigured(filepath.Join(out, "x.sql"), "fixture"); err == nil || !strings.Contains(err.Error(), "fixture "+filepath.Join(out, "x.sql")+" is outside the repository") {
		t.Errorf("a configured path outside: %v", err)
	}
	if err := s.ConfineConfigured(filepath.Join(root, "in.sql"), "fixture"); err != nil {
		t.Errorf("a configured path inside: %v", err)
	}
	for _, open := range []Scope{{Root: root, AllowOutside: true}, {}} {
		if err := open.ConfineConfigured(filepath.Join(root, "to-out.sql"), "fixture"); err != nil {
			t.Errorf("%+v: %v", open, err)
		}
	}
}
