package scripts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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
const guardSource = "../internal/scratch/guard/c/ledgercheck_guard.c"

// TestSetupIsIdempotent: with everything installed (make test runs make setup first), a run
// does nothing: it says so, names what it skipped (the guard built from the current source, and
// bubblewrap among them), runs no installer, and leaves the installed files as they were.
func TestSetupIsIdempotent(t *testing.T) {
	needSetupDone(t, "15")
	installed := []string{
		"/usr/lib/postgresql/15/lib/ledgercheck_guard.so", "/usr/lib/postgresql/15/lib/ledgercheck_guard.digest",
		"/usr/lib/postgresql/15/lib/vector.so", "/usr/share/postgresql/15/extension/vector.control",
		"/usr/lib/postgresql/15/lib/plpgsql_check.so", "/usr/share/postgresql/15/extension/plpgsql_check.control",
	}
	before := stats(installed)
	out, err := exec.Command("bash", "setup.sh").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "nothing to do") {
		t.Errorf("setup.sh: %v:\n%s\nwant exit 0 and 'nothing to do'", err, out)
	}
	for _, installer := range []string{"apt-get", "make -C", "dpkg"} {
		if strings.Contains(string(out), installer) {
			t.Errorf("a second setup ran %s:\n%s", installer, out)
		}
	}
	if after := stats(installed); after != before {
		t.Errorf("a second setup changed installed files:\nbefore %s\nafter  %s", before, after)
	}
	for _, want := range []string{"setup: skip: ledgercheck_guard " + digest(t, guardSource) + " installed", "setup: skip: bubblewrap present",
		"setup: skip: plpgsql_check present (/usr/share/postgresql/15/extension/plpgsql_check.control)"} {
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
	guardDir := filepath.Join(tree, "internal", "scratch", "guard", "c")
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
		"  " + sudo() + "make -C " + guardDir + " PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config GUARD_VERSION=" + newDigest + " install",
		"echo " + newDigest + " | " + sudo() + "tee " + digestFile} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if after, _ := os.ReadFile(digestFile); string(after) != string(before) {
		t.Errorf("%s changed from %q to %q", digestFile, before, after)
	}
}

// sudo is how setup prefixes the commands it prints for root: "sudo " where there is a sudo, ""
// (the commands then said to be run as root) where there is none, as on a root-only machine.
func sudo() string {
	if _, err := exec.LookPath("sudo"); err != nil {
		return ""
	}
	return "sudo "
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
// Debian 12 root where nothing is installed, simulated), setup changes nothing and prints the
// commands that need root, each with sudo where there is one.
func TestSetupWithoutRootNamesTheSudoCommands(t *testing.T) {
	fake := sharedFakeRoot(t, debian12Release, map[string]string{"sources.list.d/debian.sources": debianSources})
	cmd := exec.Command("bash", "setup.sh")
	cmd.Env = append(os.Environ(), "LEDGERCHECK_SETUP_SYSROOT="+fake, "PG_MAJOR=15")
	out, err := asOrdinaryUser(t, cmd).CombinedOutput()
	if err != nil {
		t.Fatalf("exit %v, want 0 (a simulation):\n%s", err, out)
	}
	for _, want := range []string{"need root", "run '" + sudo() + "make setup'", "  " + sudo() + "apt-get install -y postgresql-15 postgresql-server-dev-15 postgresql-15-plpgsql-check",
		"apt-get source --download-only pgvector=0.8.0-1 && tar -xf pgvector_0.8.0.orig.tar.* && make -C pgvector-0.8.0 PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config && " + sudo() + "make -C pgvector-0.8.0 PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config install",
		"  " + sudo() + "apt-get install -y bubblewrap"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// debian12Release is /etc/os-release of Debian 12, and debianSources an apt source of its.
const (
	debian12Release = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n"
	debianSources   = "Types: deb\nURIs: http://deb.debian.invalid/debian\nSuites: bookworm bookworm-updates\nComponents: main\n"
)

// sharedFakeRoot is [fakeRoot] in a directory any user can read (an ordinary user's setup reads
// it), removed when the test ends.
func sharedFakeRoot(t *testing.T, osRelease string, apt map[string]string) string {
	t.Helper()
	root, err := os.MkdirTemp("", "ledgercheck-setuptest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, "", filepath.Join(root, "etc", "os-release"), []byte(osRelease))
	for name, content := range apt {
		copyFile(t, "", filepath.Join(root, "etc", "apt", name), []byte(content))
	}
	return root
}

// needSetupDone skips the test, or fails it under CI=true, unless `setup.sh --check` says that
// PostgreSQL pg's setup is done (bubblewrap absent, for instance, skips it with setup's line).
func needSetupDone(t *testing.T, pg string) {
	t.Helper()
	cmd := exec.Command("bash", "setup.sh", "--check")
	cmd.Env = append(os.Environ(), "PG_MAJOR="+pg)
	if out, err := cmd.CombinedOutput(); err != nil {
		line := strings.TrimSpace(string(out))
		if os.Getenv("CI") == "true" {
			t.Fatalf("setup has not been done (CI=true): %s", line)
		}
		t.Skipf("setup has not been done: %s", line)
	}
}

// pg17Prefix is where `make setup PG=17` installs PostgreSQL 17 (see setup.sh).
const pg17Prefix = "/usr/local/lib/postgresql/17"

// TestSetupPG17IsIdempotent: `PG_MAJOR=17 setup.sh` installs what is missing (when the tests run
// as root; on a machine that ran `make setup PG=17` there is nothing to install), and a second
// run then changes nothing and runs no installer: npm, apt-get, dpkg-deb, tar, gcc and make are
// replaced by stubs that record their calls, and none may be called. The tree it installed is
// complete (server, pg_config naming the tree, server headers, pgvector, plpgsql_check) and does not become the
// machine's default PostgreSQL (`pg_config --bindir`), which stays what ledgercheck uses unless
// given --pg 17 (or --pg-bin).
func TestSetupPG17IsIdempotent(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil && os.Getenv("CI") != "true" {
		t.Skip("bubblewrap is not installed; the test installs no package")
	}
	if !isExecFile(filepath.Join(pg17Prefix, "bin", "postgres")) && os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL 17 is not installed in %s and the test does not run as root to install it (CI=true)", pg17Prefix)
		}
		t.Skipf("PostgreSQL 17 is not installed in %s (run `sudo make setup PG=17`)", pg17Prefix)
	}
	first := exec.Command("bash", "setup.sh")
	first.Env = append(os.Environ(), "PG_MAJOR=17")
	if out, err := first.CombinedOutput(); err != nil {
		t.Fatalf("PG_MAJOR=17 setup.sh: %v:\n%s", err, out)
	}

	stubs := t.TempDir()
	calls := filepath.Join(stubs, "calls")
	for _, name := range []string{"npm", "node", "apt-get", "apt", "dpkg-deb", "tar", "gcc", "cc", "make"} {
		stub := "#!/bin/sh\necho \"" + name + " $*\" >> " + calls + "\nexit 1\n"
		if err := os.WriteFile(filepath.Join(stubs, name), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	second := exec.Command("bash", "setup.sh")
	second.Env = append(os.Environ(), "PG_MAJOR=17", "PATH="+stubs+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := second.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "nothing to do") {
		t.Errorf("second PG_MAJOR=17 setup.sh: %v:\n%s\nwant exit 0 and 'nothing to do'", err, out)
	}
	if called, _ := os.ReadFile(calls); len(called) > 0 {
		t.Errorf("second PG_MAJOR=17 setup.sh ran installers:\n%s", called)
	}
	for _, want := range []string{
		"setup: skip: PostgreSQL 17.", "server present (" + pg17Prefix + "/bin",
		"setup: skip: PostgreSQL 17 server headers present (" + pg17Prefix + "/include/postgresql/server",
		"setup: skip: pgvector present (" + pg17Prefix + "/share/postgresql/extension/vector.control)",
		"setup: skip: plpgsql_check present (" + pg17Prefix + "/share/postgresql/extension/plpgsql_check.control)",
		"setup: skip: ledgercheck_guard: PostgreSQL 17 needs none",
		"setup: skip: bubblewrap present",
		"PostgreSQL 17 (" + pg17Prefix + "/bin): pass --pg 17 to ledgercheck",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	pgConfig := filepath.Join(pg17Prefix, "bin", "pg_config")
	for opt, want := range map[string]string{
		"--version":           "PostgreSQL 17.",
		"--bindir":            pg17Prefix + "/bin",
		"--pkglibdir":         pg17Prefix + "/lib/postgresql",
		"--sharedir":          pg17Prefix + "/share/postgresql",
		"--includedir-server": pg17Prefix + "/include/postgresql/server",
		"--pgxs":              pg17Prefix + "/lib/postgresql/pgxs/src/makefiles/pgxs.mk",
	} {
		got, err := exec.Command(pgConfig, opt).Output()
		if err != nil || !strings.HasPrefix(strings.TrimSpace(string(got)), want) {
			t.Errorf("pg_config %s = %q (%v), want %q", opt, got, err, want)
		}
	}
	for _, f := range []string{"bin/initdb", "bin/postgres", "bin/pg_ctl"} {
		if !isExecFile(filepath.Join(pg17Prefix, f)) {
			t.Errorf("%s/%s is missing", pg17Prefix, f)
		}
	}
	for _, f := range []string{"include/postgresql/server/postgres.h", "include/postgresql/server/fmgr.h", "lib/postgresql/vector.so",
		"lib/postgresql/plpgsql_check.so", "share/postgresql/extension/plpgsql_check.control",
		"lib/postgresql/pgcrypto.so", "lib/postgresql/uuid-ossp.so", "lib/postgresql/pgxs/src/makefiles/pgxs.mk"} {
		if _, err := os.Stat(filepath.Join(pg17Prefix, f)); err != nil {
			t.Errorf("%v", err)
		}
	}
	if got, err := exec.Command("pg_config", "--bindir").Output(); err == nil && strings.HasPrefix(string(got), pg17Prefix) {
		t.Errorf("pg_config on PATH names %s: PostgreSQL 17 became the machine's default", got)
	}
}

// TestSetupPG17WithoutRootNamesTheInstall: when the PostgreSQL 17 tree is missing or was made
// from other sources (here: a pg_config.c changed in a copy of the script's tree), setup run by
// an ordinary user changes nothing and prints the one command that installs it, and nothing
// about the guard, which 17 does not need.
func TestSetupPG17WithoutRootNamesTheInstall(t *testing.T) {
	tree, err := os.MkdirTemp("", "ledgercheck-setuptest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tree) })
	if err := os.Chmod(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("pgconfig/pg_config.c")
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, "setup.sh", filepath.Join(tree, "scripts", "setup.sh"), nil)
	copyFile(t, "pgconfig/pg_config.c", filepath.Join(tree, "scripts", "pgconfig", "pg_config.c"), append(src, "/* changed */\n"...))
	stamp := filepath.Join(pg17Prefix, "ledgercheck-setup.stamp")
	before, _ := os.ReadFile(stamp)

	cmd := exec.Command("bash", filepath.Join(tree, "scripts", "setup.sh"))
	cmd.Env = append(os.Environ(), "PG_MAJOR=17")
	out, err := asOrdinaryUser(t, cmd).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1:\n%s", err, out)
	}
	for _, want := range []string{"need root", "make setup PG=17",
		"  " + sudo() + "env PG_MAJOR=17 bash " + filepath.Join(tree, "scripts", "setup.sh") + "   # into " + pg17Prefix} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"ledgercheck_guard", "apt-get install -y postgresql-17"} {
		if strings.Contains(string(out), unwanted) {
			t.Errorf("output names %q:\n%s", unwanted, out)
		}
	}
	if after, _ := os.ReadFile(stamp); string(after) != string(before) {
		t.Errorf("%s changed from %q to %q", stamp, before, after)
	}
}

func isExecFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// stats describes the files (size and modification time; "absent" for a missing one), to tell
// whether something rewrote them.
func stats(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(&b, "%s absent; ", p)
			continue
		}
		fmt.Fprintf(&b, "%s %d %s; ", p, st.Size(), st.ModTime().Format(time.RFC3339Nano))
	}
	return b.String()
}

// fakeRoot makes a root for LEDGERCHECK_SETUP_SYSROOT holding etc/os-release (none when
// osRelease is "") and the given files under etc/apt.
func fakeRoot(t *testing.T, osRelease string, apt map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if osRelease != "" {
		copyFile(t, "", filepath.Join(root, "etc", "os-release"), []byte(osRelease))
	}
	for name, content := range apt {
		copyFile(t, "", filepath.Join(root, "etc", "apt", name), []byte(content))
	}
	return root
}

// runStubbed runs setup.sh with env added and every installer (apt-get, dpkg, npm, gcc, make,
// ...) replaced by a stub that records its call and fails; it returns the exit code, stdout,
// stderr and the calls.
func runStubbed(t *testing.T, script string, env ...string) (code int, stdout, stderr, calls string) {
	t.Helper()
	return runStubbedArgs(t, script, nil, env...)
}

// runStubbedArgs is [runStubbed] with arguments for the script.
func runStubbedArgs(t *testing.T, script string, args []string, env ...string) (code int, stdout, stderr, calls string) {
	t.Helper()
	return runStubs(t, script, args, 1, env...)
}

// runStubs is [runStubbedArgs] with stubs that exit with stubExit.
func runStubs(t *testing.T, script string, args []string, stubExit int, env ...string) (code int, stdout, stderr, calls string) {
	t.Helper()
	stubs := t.TempDir()
	log := filepath.Join(stubs, "calls")
	for _, name := range []string{"apt-get", "apt", "dpkg", "dpkg-deb", "npm", "node", "tar", "gcc", "cc", "make", "sudo", "apparmor_parser", "install", "sh"} {
		stub := "#!/bin/sh\necho \"" + name + " $*\" >> " + log + "\nexit " + strconv.Itoa(stubExit) + "\n"
		if err := os.WriteFile(filepath.Join(stubs, name), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), append(env, "PATH="+stubs+string(os.PathListSeparator)+os.Getenv("PATH"))...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	c, _ := os.ReadFile(log)
	return code, out.String(), errb.String(), string(c)
}

// TestSetupOffDebianSaysWhatItNeeds: on a system setup does not install on (Ubuntu 20.04 and
// 24.10; Debian 11; Fedora; one without os-release), a setup with something to install runs no
// installer and fails with one line naming the system, what is missing, and how to provide it
// (PGDG's packages, or --dsn), whether it runs as root or not.
func TestSetupOffDebianSaysWhatItNeeds(t *testing.T) {
	ubuntuSources := map[string]string{
		"sources.list":                  "# Ubuntu sources have moved to /etc/apt/sources.list.d/ubuntu.sources\n",
		"sources.list.d/ubuntu.sources": "Types: deb\nURIs: http://azure.archive.ubuntu.com/ubuntu/\nSuites: noble noble-updates\nComponents: main universe\n",
	}
	for _, tc := range []struct {
		name, osRelease, pg, system, missing, how string
	}{
		{"ubuntu-20.04", "PRETTY_NAME=\"Ubuntu 20.04.6 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"20.04\"\nID=ubuntu\nID_LIKE=debian\n", "15",
			"this is Ubuntu 20.04.6 LTS (", "missing: the PostgreSQL 15 server and headers, pgvector 0.8.0, plpgsql_check",
			"install postgresql-15, postgresql-server-dev-15, postgresql-15-pgvector and postgresql-15-plpgsql-check from the PostgreSQL project's apt repository (PGDG)"},
		{"ubuntu-24.10-pg17", "PRETTY_NAME=\"Ubuntu 24.10\"\nVERSION_ID=\"24.10\"\nID=ubuntu\n", "17",
			"this is Ubuntu 24.10 (", "missing: the PostgreSQL 17 server and headers",
			"install postgresql-17, postgresql-server-dev-17, postgresql-17-pgvector and postgresql-17-plpgsql-check from the PostgreSQL project's apt repository (PGDG) and bubblewrap, then run ledgercheck with --pg 17"},
		{"debian-11", "PRETTY_NAME=\"Debian GNU/Linux 11 (bullseye)\"\nVERSION_ID=\"11\"\nID=debian\n", "15",
			"this is Debian GNU/Linux 11 (bullseye) (", "missing: the PostgreSQL 15 server", "(PGDG)"},
		{"fedora", "NAME=Fedora\nVERSION_ID=40\nID=fedora\n", "15", "this is Fedora (", "missing: the PostgreSQL 15 server", "(PGDG)"},
		{"no-os-release", "", "15", "this is an unknown system (no ", "missing: the PostgreSQL 15 server", "(PGDG)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := "setup.sh"
			if tc.pg == "17" { // a copy whose pg_config.c changed: the installed 17 (if any) is stale for it
				tree := t.TempDir()
				script = filepath.Join(tree, "scripts", "setup.sh")
				copyFile(t, "setup.sh", script, nil)
				src, err := os.ReadFile("pgconfig/pg_config.c")
				if err != nil {
					t.Fatal(err)
				}
				copyFile(t, "", filepath.Join(tree, "scripts", "pgconfig", "pg_config.c"), append(src, "/* changed */\n"...))
			}
			root := fakeRoot(t, tc.osRelease, ubuntuSources)
			code, out, errs, calls := runStubbed(t, script, "LEDGERCHECK_SETUP_SYSROOT="+root, "PG_MAJOR="+tc.pg)
			line := strings.TrimSuffix(errs, "\n")
			if code != 1 || strings.Contains(line, "\n") || !strings.HasPrefix(line, "setup: "+tc.system) {
				t.Fatalf("exit %d, stderr %q, stdout %q; want exit 1 and one line starting %q", code, errs, out, "setup: "+tc.system)
			}
			for _, want := range []string{"setup installs on Debian 12 (bookworm) and Ubuntu 22.04 and 24.04 only", tc.missing, tc.how, "--dsn URL"} {
				if !strings.Contains(line, want) {
					t.Errorf("the line lacks %q:\n%s", want, line)
				}
			}
			if calls != "" {
				t.Errorf("setup ran installers:\n%s", calls)
			}
		})
	}
}

// TestSetupFindsTheDebianMirrorOrSaysSo: on Debian 12, the mirror pgvector's source comes from is
// looked up in the apt sources before anything is installed. A layout with no Debian mirror in it
// (Ubuntu's: a commented sources.list and a deb822 file) fails with one line saying so, before
// apt-get has run (a grep that matches nothing must not end the lookup under pipefail); deb822 and
// one-line bookworm layouts pass the lookup, and the plan (a simulation) writes the deb-src entry
// for the mirror found.
func TestSetupFindsTheDebianMirrorOrSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		apt    map[string]string
		code   int
		stderr string // its one line's start, or "" for none
		stdout string // what stdout holds
	}{
		{"no-debian-mirror", map[string]string{
			"sources.list":                  "# Ubuntu sources have moved to /etc/apt/sources.list.d/ubuntu.sources\n",
			"sources.list.d/ubuntu.sources": "Types: deb\nURIs: http://azure.archive.ubuntu.com/ubuntu/\nSuites: noble\nComponents: main\n",
		}, 1, "setup: cannot find a Debian mirror (a deb.debian.org-style URI ending in /debian) in ", ""},
		{"no-sources-at-all", nil, 1, "setup: cannot find a Debian mirror", ""},
		{"deb822-bookworm", map[string]string{
			"sources.list.d/debian.sources": "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\n",
		}, 0, "", "\\nURIs: http://deb.debian.org/debian\\nSuites: trixie\\n"},
		{"one-line-bookworm", map[string]string{
			"sources.list": "# a comment\ndeb http://mirror.example.org/debian/ bookworm main\n",
		}, 0, "", "\\nURIs: http://mirror.example.org/debian/\\nSuites: trixie\\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := fakeRoot(t, debian12Release, tc.apt)
			code, out, errs, calls := runStubbed(t, "setup.sh", "LEDGERCHECK_SETUP_SYSROOT="+root, "PG_MAJOR=15")
			line := strings.TrimSuffix(errs, "\n")
			if code != tc.code || strings.Contains(line, "\n") || !strings.HasPrefix(line, tc.stderr) || tc.stderr == "" && errs != "" ||
				!strings.Contains(out, tc.stdout) {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit %d, stderr starting %q and stdout holding %q", code, errs, out, tc.code, tc.stderr, tc.stdout)
			}
			if calls != "" {
				t.Errorf("setup ran installers:\n%s", calls)
			}
		})
	}
}

// TestSetupRefusesVersionsLedgercheckDoesNotRun: setup plans no install of a PostgreSQL
// ledgercheck refuses to run (16, or any other than 15 and 17): `make setup PG=16` and
// `PG_MAJOR=16 setup.sh` say so in one line, exit 2 (a usage error), and run no installer.
func TestSetupRefusesVersionsLedgercheckDoesNotRun(t *testing.T) {
	for _, pg := range []string{"16", "14", "99"} {
		code, out, errs, calls := runStubbed(t, "setup.sh", "PG_MAJOR="+pg)
		if want := "setup: PostgreSQL " + pg + ": ledgercheck runs PostgreSQL 15 or 17\n"; code != 2 || out != "" || errs != want || calls != "" {
			t.Errorf("PG_MAJOR=%s setup.sh: exit %d, stdout %q, stderr %q, installers %q; want exit 2 and %q", pg, code, out, errs, calls, want)
		}
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	mk := exec.Command("make", "--no-print-directory", "-C", "..", "setup", "PG=16")
	var out, errb strings.Builder
	mk.Stdout, mk.Stderr = &out, &errb
	err := mk.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || out.String() != "" || strings.Count(errb.String(), "\n") != 1 ||
		!strings.Contains(errb.String(), "PG=16: ledgercheck runs PostgreSQL 15 or 17") {
		t.Errorf("make setup PG=16: %v, stdout %q, stderr %q; want exit 2 and one line saying ledgercheck runs 15 or 17", err, out.String(), errb.String())
	}
}
