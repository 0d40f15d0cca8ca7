package main

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
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
		return execute(t, cmd)
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

// TestSetupAsAnotherUser (simulation: a Debian 12 root where nothing is installed): run by a user
// who is not root, `ledgercheck setup` changes nothing and prints the commands to run as root,
// naming this binary for the whole setup and, for the guard, a copy of its source that outlives
// the run (under the user's cache directory), so that the commands work as pasted.
func TestSetupAsAnotherUser(t *testing.T) {
	bin := binary(t)
	work, err := os.MkdirTemp("", "ledgercheck-setup-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "setup")
	home := filepath.Join(work, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			t.Skip("no unprivileged user to run as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(home, uid, gid); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	fake := filepath.Join(work, "root")
	for name, content := range map[string]string{
		"etc/os-release":                        "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nVERSION_ID=\"12\"\nID=debian\n",
		"etc/apt/sources.list.d/debian.sources": "Types: deb\nURIs: http://deb.debian.invalid/debian\nSuites: bookworm\nComponents: main\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(fake, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fake, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME=", "LEDGERCHECK_SETUP_SYSROOT="+fake, "LEDGERCHECK_PG=")
	code, out, errs := execute(t, cmd)
	if code != 0 || errs != "" {
		t.Fatalf("setup as another user (simulation): exit %d, stderr %q; want exit 0 and the commands on stdout:\n%s", code, errs, out)
	}
	if !strings.Contains(out, " need root; run '"+strings.TrimSpace(sudoPrefix()+bin)+" setup'") &&
		!strings.Contains(out, "need root (and there is no sudo); run '"+bin+" setup' as root") {
		t.Errorf("setup does not name this binary's setup to run as root:\n%s", out)
	}
	m := regexp.MustCompile(`make -C (\S+) PG_CONFIG=\S+ GUARD_VERSION=\S+ install`).FindStringSubmatch(out)
	if m == nil || !strings.HasPrefix(m[1], filepath.Join(home, ".cache", "ledgercheck-setup")+"/") {
		t.Fatalf("the guard's build is not from the user's cache directory:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(m[1], "ledgercheck_guard.c")); err != nil {
		t.Errorf("the guard's source the commands name is gone after the run: %v", err)
	}
}

// sudoPrefix is how setup prefixes a command for root: "sudo " where there is a sudo, else "".
func sudoPrefix() string {
	if _, err := exec.LookPath("sudo"); err != nil {
		return ""
	}
	return "sudo "
}
