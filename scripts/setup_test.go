// Package scripts holds the setup script; its tests run it.
package scripts

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSetupIsIdempotent: with everything installed (make test runs make setup first), a run
// changes nothing, says so, and takes well under 5 s.
func TestSetupIsIdempotent(t *testing.T) {
	t0 := time.Now()
	out, err := exec.Command("bash", "setup.sh").CombinedOutput()
	if d := time.Since(t0); err != nil || !strings.Contains(string(out), "nothing to do") || d > 5*time.Second {
		t.Errorf("setup.sh: %v after %v:\n%s\nwant exit 0, 'nothing to do', under 5 s", err, d, out)
	}
}

// TestSetupWithoutRootNamesTheSudoCommands: run by an ordinary user with something missing (a
// PostgreSQL major that is not installed), setup changes nothing and prints the commands that
// need root.
func TestSetupWithoutRootNamesTheSudoCommands(t *testing.T) {
	cmd := exec.Command("bash", "setup.sh")
	cmd.Env = append(os.Environ(), "PG_MAJOR=99")
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			t.Skip("no unprivileged user to run as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1:\n%s", err, out)
	}
	for _, want := range []string{"need root", "sudo apt-get install -y postgresql-99 postgresql-server-dev-99", "deb-src", "pgvector"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
