package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// userSidecar is the migration of a user's own repository the tests check (see
// testdata/userrepo/README.md).
const userSidecar = "../../testdata/userrepo/agent_playbooks.sql"

// pathWithout returns $PATH without the directories of the checkout and those that hold a
// ledgercheck (a `go install` of the checkout), with dir first: what a user with the binary
// alone has.
func pathWithout(t *testing.T, dir string) string {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	keep := []string{dir}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		abs, err := filepath.Abs(d)
		if err != nil || abs == root || strings.HasPrefix(abs, root+string(filepath.Separator)) {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "ledgercheck")); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// distBinaryInAUsersRepository runs the binary of a release archive (bin) as a user with that
// binary alone would, outside any checkout and with no checkout on PATH: `ledgercheck setup` has
// nothing to do where setup was done (this machine, CI after make setup; elsewhere the test
// skips, and fails under CI=true), then, in a new git repository holding a sidecar of the user's
// own, `ledgercheck init` writes its configuration and `ledgercheck check` passes it.
func distBinaryInAUsersRepository(t *testing.T, bin string) {
	scratchtest.NeedPostgres(t)
	path := pathWithout(t, filepath.Dir(bin))
	run := func(dir string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+path, "NO_COLOR=1")
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	if found, err := lookPathIn("ledgercheck", path); err != nil || found != bin {
		t.Fatalf("ledgercheck on the user's PATH is %q (%v), want the archive's %s", found, err, bin)
	}

	outside := t.TempDir()
	if code, _, errs := run(outside, "setup", "--check"); code != 0 {
		scratchtest.Unavailable(t, errorString("setup has not been done here: "+strings.TrimSpace(errs)))
	}
	if code, out, errs := run(outside, "setup"); code != 0 || !strings.HasSuffix(out, "setup: nothing to do\n") {
		t.Fatalf("ledgercheck setup: exit %d, stderr %q; want exit 0 and nothing to do:\n%s", code, errs, out)
	}

	repo := t.TempDir()
	if out, err := exec.Command("git", "-C", repo, "init", "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	src, err := os.ReadFile(userSidecar)
	if err != nil {
		t.Fatal(err)
	}
	sidecar := filepath.Join("supabase", "sidecars", "agent_playbooks.sql")
	if err := os.MkdirAll(filepath.Join(repo, filepath.Dir(sidecar)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, sidecar), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(repo, "init", "--artifact", sidecar, "--dim", "1536"); code != 0 {
		t.Fatalf("ledgercheck init: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(repo, "ledgercheck.yaml")); err != nil {
		t.Fatalf("init wrote no ledgercheck.yaml: %v", err)
	}
	code, out, errs := run(repo, "check", "-q")
	if code != 0 || !strings.HasPrefix(out, "ledgercheck v0.4.2") || !strings.Contains(out, ": PASS (") || !strings.Contains(out, "rerun artifact ") {
		t.Errorf("ledgercheck check in the user's repository: exit %d, stderr %q; want exit 0 and PASS:\n%s", code, errs, out)
	}
}

// lookPathIn is exec.LookPath over path instead of $PATH.
func lookPathIn(name, path string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// errorString is an error that is its text.
type errorString string

func (e errorString) Error() string { return string(e) }
