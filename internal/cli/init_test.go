package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/config"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// init writes a configuration that loads as written, refuses to overwrite one without --force,
// and creates an empty, valid allowlist for a port.
func TestInit(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, errs := runCLI(t, "init", "--artifact", "sidecar.sql", "--dim", "1536")
	if code != ExitOK || out != "" || !strings.Contains(errs, "wrote ledgercheck.yaml") || !strings.Contains(errs, "sidecar.sql does not exist yet") {
		t.Fatalf("init: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	c, err := config.Load(config.DefaultFile, false)
	if err != nil || c.Artifact.File != "sidecar.sql" || len(c.Ports) != 0 {
		t.Fatalf("the written configuration: %+v, %v", c, err)
	}
	code, _, errs = runCLI(t, "init", "--artifact", "other.sql", "--dim", "768")
	if code != ExitInput || errs != "ledgercheck: ledgercheck.yaml already exists; pass --force to overwrite it\n" {
		t.Errorf("init over an existing file: exit %d, stderr %q", code, errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"init", "--dim", "1536"}, "init: no .sql file under ."},
		{[]string{"init", "--glob", "*.sql", "--dim", "0"}, "--dim 0 is out of range"},
		{[]string{"init", "--glob", "*.sql", "--port", "p.sql"}, "--port describes a port of --artifact"},
		{[]string{"init", "--update", "--force"}, "give one"},
		{[]string{"init", "--artifact", "a.sql", "--dim", "3", "--update"}, "drop --artifact"},
		{[]string{"init", "--artifact", "a.sql", "--dim", "0"}, "--dim 0"},
		{[]string{"init", "--artifact", "a.sql", "--dim", "3", "--port-dim", "3"}, "pass --port FILE too"},
		{[]string{"init", "--artifact", "a.sql", "--dim", "3", "--port", "p.sql"}, "--port-dim N is required: the port's vector dimension"},
		{[]string{"init", "--artifact", "a.sql", "--dim", "3", "--port", "p.sql", "--port-dim", "0"}, "--port-dim 0 is out of range"},
		{[]string{"init", "--artifact", "a.sql"}, "--dim N is required: the artifact's vector dimension (e.g. --dim 1536)"},
	} {
		if code, _, errs := runCLI(t, tc.args...); code != ExitInput || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	code, _, errs = runCLI(t, "init", "-q", "--force", "--artifact", "sidecar.sql", "--dim", "1536", "--port", "ports/sidecar_768.sql", "--port-dim", "768")
	if code != ExitOK || errs != "" {
		t.Fatalf("init --force with a port: exit %d, stderr %q", code, errs)
	}
	if c, err = config.Load(config.DefaultFile, false); err != nil || len(c.Ports) != 1 || c.Ports[0].Name != "sidecar_768" || c.Ports[0].Allowlist != "allowlist.yaml" {
		t.Fatalf("with a port: %+v, %v", c, err)
	}
	if al, err := allowlist.Load("allowlist.yaml"); err != nil || al == nil || len(al.Entries) != 0 {
		t.Errorf("the allowlist init wrote: %+v, %v", al, err)
	}
}

// initSidecar runs `ledgercheck init --artifact artifact --dim 1536` in a new empty directory,
// which becomes the working directory, and returns the repository root (for the shipped files).
func initSidecar(t *testing.T, artifact string) (repo string) {
	t.Helper()
	if testing.Short() {
		t.Skip("installs a sidecar")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if code, _, errs := runCLI(t, "init", "-q", "--artifact", artifact, "--dim", "1536"); code != ExitOK {
		t.Fatalf("init: %s", errs)
	}
	return repo
}

// In an empty directory, init plus a sidecar file plus prerequisites.files (the sidecar it
// depends on) gives a passing check; without the prerequisite the sidecar fails to install, at
// its line, with the server's message.
func TestInitThenCheck(t *testing.T) {
	repo := initSidecar(t, "notes.sql")
	for _, name := range []string{"notes.sql", "deps/tags.sql"} {
		b, err := os.ReadFile(filepath.Join(repo, "testdata/sidecar", name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, name, string(b))
	}
	without, err := os.ReadFile(config.DefaultFile)
	if err != nil {
		t.Fatal(err)
	}
	with := strings.Replace(string(without), "\n  files: []\n", "\n  files: [deps/tags.sql]\n", 1)
	write(t, config.DefaultFile, with)
	rep := sharedCheck(t)
	var names []string
	for _, ph := range rep.Phases {
		names = append(names, ph.Name+" "+string(ph.Status))
	}
	// The foreign key to the prerequisite's table locks it: the locks phase warns, the gate passes.
	want := []string{"lint artifact pass", "parity skip", "lint installed artifact pass", "audit artifact pass", "bodies artifact skip", "locks artifact warn", "rerun artifact pass"}
	if !slices.Equal(names, want) || rep.Failed() {
		t.Fatalf("check with the prerequisite: %q, want %q (errors %v)", names, want, errorRules(rep))
	}
	var locked []string
	for _, f := range rep.Phases[5].Findings {
		locked = append(locked, fmt.Sprintf("%s %s %s", f.Pos, f.Rule, f.Object))
	}
	if wantLocks := []string{"notes.sql:1:1 lock-blocks-writes table public.tags", "notes.sql:1:1 lock-without-timeout table public.tags"}; !slices.Equal(locked, wantLocks) {
		t.Errorf("the locks phase: %q, want %q", locked, wantLocks)
	}

	// lint --install installs over the same prerequisites, and says which one does not install
	// (on the package's --dsn stand-in server: no cluster of its own for each of the three runs).
	lintInstall := []string{"lint", "-q", "--install", "notes.sql", "--dsn", hostDSN(t, "")}
	if code, out, errs := runCLI(t, lintInstall...); code != ExitOK {
		t.Errorf("lint --install with the prerequisite: exit %d\n%s%s", code, out, errs)
	}
	write(t, "deps/tags.sql", "CREATE TABLE public.tags (id int);\nSELECT no_such_function();\n")
	if code, out, _ := runCLI(t, lintInstall...); code != ExitFindings ||
		!strings.Contains(out, "deps/tags.sql:2:8: error: a prerequisite (deps/tags.sql) does not install: function no_such_function() does not exist") {
		t.Errorf("lint --install with a broken prerequisite: exit %d\n%s", code, out)
	}

	write(t, config.DefaultFile, string(without))
	if code, out, _ := runCLI(t, lintInstall...); code != ExitFindings || !strings.Contains(out, `relation "public.tags" does not exist`) {
		t.Errorf("lint --install without the prerequisite: exit %d\n%s", code, out)
	}
	rep = sharedCheck(t)
	if !rep.Failed() || rep.Phases[1].Name != "install artifact" {
		t.Fatalf("check without the prerequisite: %v", errorRules(rep))
	}
	f := rep.Phases[1].Findings[0]
	if f.Pos.String() != "notes.sql:1:1" || !strings.Contains(f.Message, `relation "public.tags" does not exist`) {
		t.Errorf("install finding: %s: %s", f.Pos, f.Message)
	}
}

// init --glob writes a configuration of version 3 with one sidecar per matching file, named
// after its directory, and the needs its statements' references show; it loads as written.
func TestInitGlob(t *testing.T) {
	src, err := filepath.Abs(testRepository)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "ledgercheck.yaml"))
	t.Chdir(dir)
	if code, _, errs := runCLI(t, "init", "--glob", "*/*/*.sql", "--dim", "1536"); code != 0 {
		t.Fatalf("init --glob: exit %d: %s", code, errs)
	}
	c, err := config.Load("ledgercheck.yaml", false)
	if err != nil {
		t.Fatal(err)
	}
	needs := map[string]string{}
	for _, s := range c.Repository() {
		needs[s.Name] = strings.Join(s.Needs, ",")
	}
	want := map[string]string{"link-cleanup": "thought-links", "tag-people": "thought-people,thought-tags", "people": "", "thought-people": "people", "project-thoughts": "projects", "reading-list": "sources", "thought-tags": "", "daily-digest": ""}
	for name, n := range want {
		if got, ok := needs[name]; !ok || got != n {
			t.Errorf("sidecar %s needs %q (listed: %t), want %q", name, got, ok, n)
		}
	}
	if len(needs) != 12 {
		t.Errorf("%d sidecars, want the 12 of the repository", len(needs))
	}
	if code, _, errs := runCLI(t, "init", "--glob", "nothing/*.sql", "--dim", "1536", "--force"); code != ExitInput || !strings.Contains(errs, "no .sql file matches nothing/*.sql") {
		t.Errorf("a glob that matches nothing: exit %d, %s", code, errs)
	}
}
