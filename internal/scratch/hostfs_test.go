package scratch_test

// Nothing the sandbox wrote is trusted on the host: links that the cluster's own superuser (a
// shell through COPY ... TO PROGRAM) plants in the cluster's directory while the run is live
// never make ledgercheck, outside the sandbox with the host's privileges, list, read or remove
// a host file. The run's user is the test's (root here) and an ordinary user (nobody, the test
// binary run again as that user), whose sandbox may write the whole cluster directory.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// plantHelperEnv, when set in the test binary's environment, makes it run [plantHelper]
// instead of the tests: the victims' paths are in it, separated by a colon.
const plantHelperEnv = "LEDGERCHECK_TEST_PLANT_LINKS"

// plantScript replaces, in the live cluster's directory, directories and files by links to
// the host's victimDir and victimFile: the whole data/base (the attack that emptied a host
// directory), one database's directory, files the host knows by name (PG_VERSION,
// postmaster.pid, and, where the sandbox may write them, the run's PID files and its conf/),
// and a link inside a database directory. It ends by printing "planted" and what it made.
func plantScript(victimDir, victimFile string) string {
	return fmt.Sprintf(`cd /run/ledgercheck/data || exit
db=$(ls base | grep -v '^1$' | head -n 1)
mv base/$db base/$db.moved && ln -s %[1]s base/$db &&
ln -s %[1]s base/1/zz_link_to_host_dir &&
ln -s %[2]s base/1/zz_link_to_host_file &&
mv base base.moved && ln -s %[1]s base &&
mv PG_VERSION PG_VERSION.moved && ln -s %[2]s PG_VERSION &&
mv postmaster.pid postmaster.pid.moved && ln -s %[2]s postmaster.pid &&
ln -s %[1]s pg_wal/zz_link &&
echo planted
# Root's runs keep these out of the sandbox's reach (a root-owned directory); an ordinary
# user's sandbox can replace them.
(rm -f ../ledgercheck.pid && ln -s %[2]s ../ledgercheck.pid && echo owner-file-replaced) 2>/dev/null
(rm -f ../sandbox.pid && ln -s %[2]s ../sandbox.pid && echo sandbox-file-replaced) 2>/dev/null
(mv ../conf ../conf.moved && ln -s %[1]s ../conf && echo conf-replaced) 2>/dev/null
ls -l . base.moved/1 | grep -c -- '->'`, victimDir, victimFile)
}

// plantAndClose starts an embedded cluster whose install role holds the server-program role
// (what an attacker with the cluster's superuser has), plants the links with a shell inside the
// sandbox, and ends the run as ledgercheck does. It returns the cluster's directory and what
// the shell printed.
func plantAndClose(victimDir, victimFile string) (dir, out string, err error) {
	ctx := context.Background()
	s, err := scratch.StartUnguarded(ctx, scratch.Options{Cache: true})
	if err != nil {
		return "", "", err
	}
	dir = s.Dir()
	defer func() {
		if cerr := s.Close(); err == nil && cerr != nil {
			// Close may fail to remove what the server itself left half-moved; that is not
			// the point here: the host's files are.
			out += "\nclose: " + cerr.Error()
		}
	}()
	conn, err := pgx.ConnectConfig(ctx, s.AdminConfig())
	if err != nil {
		return dir, "", err
	}
	_, err = conn.Exec(ctx, `GRANT pg_execute_server_program TO postgres`)
	conn.Close(ctx)
	if err != nil {
		return dir, "", err
	}
	db, err := s.NewEnvDatabase(ctx)
	if err != nil {
		return dir, "", err
	}
	sql := fmt.Sprintf("COPY (SELECT 1) TO PROGRAM $sh$cat >/dev/null; {\n%s\n} > /run/ledgercheck/sock/shell.out 2>&1; true$sh$", plantScript(victimDir, victimFile))
	if err := sqlscript.ExecFile(ctx, db, "plant.sql", []byte(sql)); err != nil {
		return dir, "", fmt.Errorf("planting: %w", err)
	}
	// The shell's output is read as the test reads any file of the run (not by ledgercheck).
	b, _ := os.ReadFile(filepath.Join(dir, "sock", "shell.out"))
	return dir, string(b), nil
}

// plantHelper is the test binary run as an ordinary user: it plants and closes, and prints the
// cluster's directory and the shell's output.
func plantHelper() int {
	victimDir, victimFile, _ := strings.Cut(os.Getenv(plantHelperEnv), ":")
	dir, out, err := plantAndClose(victimDir, victimFile)
	fmt.Printf("dir=%s\n%s\n", dir, out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// victims makes, in a new directory, a directory with two files (one in a subdirectory) and a
// file, owned by uid (so that the run's user could remove them), and returns a function that
// reports how they differ from how they were made.
func victims(t *testing.T, uid, gid int) (dir, file string, changed func() []string) {
	t.Helper()
	top := t.TempDir()
	for _, d := range []string{filepath.Dir(top), top} { // the run's user must reach them
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir, file = filepath.Join(top, "victim-dir"), filepath.Join(top, "victim-file")
	want := map[string]string{
		filepath.Join(dir, "a"):          "precious a\n",
		filepath.Join(dir, "sub", "b"):   "precious b\n",
		file:                             "precious file\n",
		filepath.Join(dir, "postmaster"): "9999\n",
	}
	for p, content := range want {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{dir, filepath.Join(dir, "sub"), filepath.Join(dir, "a"), filepath.Join(dir, "sub", "b"), filepath.Join(dir, "postmaster"), file} {
		if err := os.Lchown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	return dir, file, func() []string {
		var diffs []string
		for p, content := range want {
			st, err := os.Lstat(p)
			if err != nil {
				diffs = append(diffs, fmt.Sprintf("%s: %v", p, err))
				continue
			}
			b, _ := os.ReadFile(p)
			if !st.Mode().IsRegular() || string(b) != content {
				diffs = append(diffs, fmt.Sprintf("%s: mode %v, content %q, want a regular file with %q", p, st.Mode(), b, content))
			}
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 3 {
			diffs = append(diffs, fmt.Sprintf("%s holds %d entries, want 3", dir, len(ents)))
		}
		return diffs
	}
}

// TestLinksPlantedInTheClusterAreNotFollowed: as the test's user (root on CI), the cluster's
// superuser replaces data/base, a database's directory and the files the host knows by name
// with links to a host directory and a host file; the run ends, the cluster's directory is
// gone, and the host's directory and file are as they were.
func TestLinksPlantedInTheClusterAreNotFollowed(t *testing.T) {
	scratchtest.NeedPostgres(t)
	vdir, vfile, changed := victims(t, os.Geteuid(), os.Getegid())
	dir, out, err := plantAndClose(vdir, vfile)
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	checkPlantedRun(t, dir, out, changed)
}

// TestLinksPlantedByAnOrdinaryUsersSandboxAreNotFollowed: the same as an ordinary user (nobody,
// when the tests run as root), whose sandbox has the user's own id and may also replace the
// run's PID files and its conf/ with links; the user's own files survive.
func TestLinksPlantedByAnOrdinaryUsersSandboxAreNotFollowed(t *testing.T) {
	scratchtest.NeedPostgres(t)
	if os.Geteuid() != 0 {
		// Already an ordinary user: the test above is this one.
		t.Skip("the tests run as an ordinary user: TestLinksPlantedInTheClusterAreNotFollowed covers it")
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("no unprivileged user to run as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	vdir, vfile, changed := victims(t, uid, gid)
	// The test binary, where nobody may run it.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(filepath.Dir(vdir), "scratch.test")
	if err := copyFile(exe, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/nonexistent", plantHelperEnv + "=" + vdir + ":" + vfile}
	for _, k := range []string{"LEDGERCHECK_PG", "LEDGERCHECK_PG_BIN", "LEDGERCHECK_TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("the run as nobody: %v\n%s\n%s", err, stdout, stderr.String())
	}
	first, out, _ := strings.Cut(string(stdout), "\n")
	dir := strings.TrimPrefix(first, "dir=")
	for _, want := range []string{"owner-file-replaced", "sandbox-file-replaced", "conf-replaced"} {
		if !strings.Contains(out, want) {
			t.Errorf("the ordinary user's sandbox could not plant %s: %s", want, out)
		}
	}
	checkPlantedRun(t, dir, out, changed)
}

// checkPlantedRun checks that the shell planted its links, that the cluster's directory is
// gone and that the host's victims are unchanged.
func checkPlantedRun(t *testing.T, dir, out string, changed func() []string) {
	t.Helper()
	if !strings.Contains(out, "planted") {
		t.Fatalf("the shell did not plant its links: %s", out)
	}
	if dir == "" {
		t.Fatal("no cluster directory")
	}
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cluster's directory %s is left behind (%v)", dir, err)
	}
	for _, d := range changed() {
		t.Errorf("the host's file changed: %s", d)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// TestSweepFollowsNoLink: the sweep of what killed runs left removes a stale cluster directory
// whose data/base is a link to a host directory without touching that directory, and leaves
// alone a name in the temp dir that is a link (to a directory with a stale owner file) and a
// stale directory of another user's.
func TestSweepFollowsNoLink(t *testing.T) {
	tmp := t.TempDir()
	vdir, vfile, changed := victims(t, os.Geteuid(), os.Getegid())
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	pid := []byte(strconv.Itoa(dead.Process.Pid))
	stale := filepath.Join(tmp, "ledgercheck-stale")
	for _, d := range []string{stale, filepath.Join(stale, "data")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(filepath.Join(stale, "ledgercheck.pid"), pid, 0o644))
	must(t, os.Symlink(vdir, filepath.Join(stale, "data", "base")))
	must(t, os.Symlink(vfile, filepath.Join(stale, "data", "PG_VERSION")))
	// A link named like a cluster, to a directory that looks stale.
	must(t, os.WriteFile(filepath.Join(vdir, "ledgercheck.pid"), pid, 0o644))
	link := filepath.Join(tmp, "ledgercheck-link")
	must(t, os.Symlink(vdir, link))
	scratch.SweepStale(tmp)
	must(t, os.Remove(filepath.Join(vdir, "ledgercheck.pid")))
	if _, err := os.Lstat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale cluster directory is left (%v)", err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("the link named like a cluster was removed (%v); only a directory of the user's is a cluster", err)
	}
	for _, d := range changed() {
		t.Errorf("the host's file changed: %s", d)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSocketLinkToAnotherServerGetsNothing: the cluster's superuser replaces its socket with a
// link to another server's socket on the host (here one the test listens on, which would
// answer anything); ledgercheck's next connection reaches it, sees that it is not the sandbox's
// postmaster and closes it before sending a byte: no user name, no password exchange, no SQL.
func TestSocketLinkToAnotherServerGetsNothing(t *testing.T) {
	s, db := escalated(t)
	dir := t.TempDir()
	must(t, os.Chmod(dir, 0o755))
	sock := filepath.Join(dir, "other.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conns := make(chan int64, 16) // the bytes each connection to it sent, once it is closed
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				// It answers nothing: a client that sends its startup message waits, until the
				// listener gives up on it.
				c.SetReadDeadline(time.Now().Add(3 * time.Second))
				n, _ := io.Copy(io.Discard, c)
				conns <- n
			}()
		}
	}()
	out := shell(t, s, db, fmt.Sprintf("cd /run/ledgercheck/sock && rm .s.PGSQL.5432 && ln -s %s .s.PGSQL.5432 && echo replaced", sock))
	if !strings.Contains(out, "replaced") {
		t.Fatalf("the shell did not replace the socket: %s", out)
	}
	_, err = s.NewEnvDatabase(context.Background())
	if err == nil || !strings.Contains(err.Error(), "is not the scratch cluster's postmaster") {
		t.Errorf("connecting through the planted link: %v, want a refusal", err)
	}
	select {
	case n := <-conns:
		if n != 0 {
			t.Errorf("ledgercheck sent %d bytes to a server that is not the sandbox's", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no connection reached the other socket: the link was not followed, so this test proves nothing")
	}
}
