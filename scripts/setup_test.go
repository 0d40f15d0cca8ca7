// Package scripts holds the setup script; its tests run it.
package scripts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// guardSource is the source of the server module ledgercheck_guard, which setup builds for
// PostgreSQL 15.
const guardSource = "../scratch/guard/c/ledgercheck_guard.c"

// TestSetupIsIdempotent: with everything installed (make test runs make setup first), a run
// changes nothing, says so, names what it skipped (the guard built from the current source, and
// bubblewrap among them), and takes well under 5 s.
func TestSetupIsIdempotent(t *testing.T) {
	t0 := time.Now()
	out, err := exec.Command("bash", "setup.sh").CombinedOutput()
	if d := time.Since(t0); err != nil || !strings.Contains(string(out), "nothing to do") || d > 5*time.Second {
		t.Errorf("setup.sh: %v after %v:\n%s\nwant exit 0, 'nothing to do', under 5 s", err, d, out)
	}
	for _, want := range []string{"setup: skip: ledgercheck_guard " + digest(t, guardSource) + " installed", "setup: skip: bubblewrap present"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestSetupWithoutRootNamesTheGuardBuild: when the guard's source has changed since it was
// installed, setup run by an ordinary user changes nothing and prints the commands that rebuild
// and install it. The change is made in a copy of the script and the source, so the installed
// guard is stale for the copy only.
func TestSetupWithoutRootNamesTheGuardBuild(t *testing.T) {
	tree, err := os.MkdirTemp("", "ledgercheck-setuptest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tree) })
	if err := os.Chmod(tree, 0o755); err != nil { // MkdirTemp's 0700 would shut nobody out
		t.Fatal(err)
	}
	src, err := os.ReadFile(guardSource)
	if err != nil {
		t.Fatal(err)
	}
	guardDir := filepath.Join(tree, "scratch", "guard", "c")
	copyFile(t, "setup.sh", filepath.Join(tree, "scripts", "setup.sh"), nil)
	copyFile(t, filepath.Join(filepath.Dir(guardSource), "Makefile"), filepath.Join(guardDir, "Makefile"), nil)
	copyFile(t, guardSource, filepath.Join(guardDir, "ledgercheck_guard.c"), append(src, "/* changed */\n"...))
	digestFile := "/usr/lib/postgresql/15/lib/ledgercheck_guard.digest"
	before, _ := os.ReadFile(digestFile)

	out, err := asOrdinaryUser(t, exec.Command("bash", filepath.Join(tree, "scripts", "setup.sh"))).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1:\n%s", err, out)
	}
	newDigest := digest(t, filepath.Join(guardDir, "ledgercheck_guard.c"))
	for _, want := range []string{"need root",
		"sudo make -C " + guardDir + " PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config GUARD_VERSION=" + newDigest + " install",
		"echo " + newDigest + " | sudo tee " + digestFile} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if after, _ := os.ReadFile(digestFile); string(after) != string(before) {
		t.Errorf("%s changed from %q to %q", digestFile, before, after)
	}
}

// digest is the guard's version for the source at path: the first 16 hex digits of its sha256.
func digest(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// copyFile writes data (nil: the content of from) to to, creating directories readable by all.
func copyFile(t *testing.T, from, to string, data []byte) {
	t.Helper()
	if data == nil {
		var err error
		if data, err = os.ReadFile(from); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// asOrdinaryUser makes cmd run as nobody when the test runs as root (skipping without one).
func asOrdinaryUser(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		return cmd
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no unprivileged user to run as")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	return cmd
}

// TestSetupWithoutRootNamesTheSudoCommands: run by an ordinary user with something missing (a
// PostgreSQL major that is not installed), setup changes nothing and prints the commands that
// need root.
func TestSetupWithoutRootNamesTheSudoCommands(t *testing.T) {
	cmd := exec.Command("bash", "setup.sh")
	cmd.Env = append(os.Environ(), "PG_MAJOR=99")
	out, err := asOrdinaryUser(t, cmd).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1:\n%s", err, out)
	}
	for _, want := range []string{"need root", "sudo apt-get install -y postgresql-99 postgresql-server-dev-99", "deb-src", "pgvector"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "ledgercheck_guard") {
		t.Errorf("output names ledgercheck_guard, which PostgreSQL 99 does not need:\n%s", out)
	}
}
