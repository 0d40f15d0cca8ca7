package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// TestCheckAsAnOrdinaryUser runs the shipped check as a user without root, as on a developer's
// machine (as nobody when the tests run as root): the sandbox then runs in a user namespace of
// that user's, and the cache lives in that user's cache directory. The first run builds the
// cache entry, the second starts from it; both pass, the entry belongs to the user, and neither
// leaves its cluster's directory or a process behind.
func TestCheckAsAnOrdinaryUser(t *testing.T) {
	scratchtest.NeedPostgres(t)
	bin := binary(t)
	uid, gid := os.Getuid(), os.Getgid()
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			t.Fatalf("no unprivileged user to run as: %v", err)
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	// The shipped set, in a directory the user can read; a home of the user's own.
	work, err := os.MkdirTemp("", "lc-ordinary-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ledgercheck.yaml", "allowlist.yaml", "migrations/decision_ledger.sql",
		"migrations/ports/decision_ledger_1024.sql", "testdata/fixtures/first_cut.sql", "testdata/fixtures/ledger_fixture.sql"} {
		b, err := os.ReadFile(filepath.Join("../..", f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(work, "repo", f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(work, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, uid, gid); err != nil {
		t.Fatal(err)
	}
	// No LEDGERCHECK_CACHE_DIR: the cache goes to the user's own cache directory.
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "LC_ALL=C"}
	for _, k := range []string{"LEDGERCHECK_PG", "LEDGERCHECK_PG_BIN", "LEDGERCHECK_TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	run := func() string {
		t.Helper()
		cmd := exec.Command(bin, "check") // its progress on stderr says where the cluster and the cache are
		cmd.Dir, cmd.Env = filepath.Join(work, "repo"), env
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 3 {
			scratchtest.Unavailable(t, errors.New(lastLine(stderr.String())))
		}
		if err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("check as uid %d: %v\n%s\n%s", uid, err, out, stderr.String())
		}
		m := clusterDirRE.FindStringSubmatch(stderr.String())
		if m == nil {
			t.Fatalf("no cluster directory logged:\n%s", stderr.String())
		}
		if _, err := os.Stat(m[1]); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the cluster directory %s is left behind (%v)", m[1], err)
		}
		return stderr.String()
	}
	if log := run(); !strings.Contains(log, "cached in") {
		t.Errorf("the first run did not build the cache entry:\n%s", log)
	}
	if log := run(); !strings.Contains(log, "copied from the cache "+filepath.Join(home, ".cache", "ledgercheck")) {
		t.Errorf("the second run did not start from the user's cache:\n%s", log)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(home, ".cache", "ledgercheck"), &st); err != nil || int(st.Uid) != uid {
		t.Errorf("the cache directory: %v, owner %d; want the user's (%d)", err, st.Uid, uid)
	}
	if procs := processesOf(t, uid); len(procs) > 0 && uid != os.Getuid() {
		t.Errorf("processes of uid %d left running: %s", uid, strings.Join(procs, ", "))
	}
}

// processesOf returns the live (not zombie) processes of uid, as "pid comm".
func processesOf(t *testing.T, uid int) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		var name, state string
		owner := -1
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			switch {
			case len(f) >= 2 && f[0] == "Name:":
				name = f[1]
			case len(f) >= 2 && f[0] == "State:":
				state = f[1]
			case len(f) >= 2 && f[0] == "Uid:":
				owner, _ = strconv.Atoi(f[1])
			}
		}
		if owner == uid && state != "Z" {
			out = append(out, strconv.Itoa(pid)+" "+name)
		}
	}
	return out
}
