package main

// Tests on the built binary: signals, process lifetimes and what is left on disk.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	// installed lists what `go install ./...` put in binPath's directory, in name order.
	installed []string
)

// binary builds ledgercheck once per test run into a directory any user can read, with `go
// install ./...` from the repository's root (GOBIN that directory): the build the tests run is
// the one TestGoInstallAllInstallsLedgercheckAlone inspects, one link of the binary for both
// rather than two.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ledgercheck-bin-")
		if err != nil {
			buildErr = err
			return
		}
		os.Chmod(dir, 0o755)
		binPath = filepath.Join(dir, "ledgercheck")
		cmd := exec.Command("go", "install", "./...")
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), "GOBIN="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go install ./...: %w\n%s", err, out)
			return
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			buildErr = err
			return
		}
		for _, e := range entries {
			installed = append(installed, e.Name())
		}
	})
	if buildErr != nil {
		t.Fatalf("building ledgercheck: %v", buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	clean := scratchtest.IsolateCache()
	code := scratchtest.StopSharedDSNServer(m.Run())
	clean()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

var clusterDirRE = regexp.MustCompile(`embedded .*cluster .*in (\S+) ready`)

// envUp starts `ledgercheck env up` and returns the process, the URI it printed and the
// cluster directory it logged.
func envUp(t *testing.T, cmd *exec.Cmd) (uri, dir string) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Dies with the test binary (killed by a timeout, say) and with the test.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	dirc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if m := clusterDirRE.FindStringSubmatch(sc.Text()); m != nil && !sent {
				dirc <- m[1]
				sent = true
			}
		}
		if !sent {
			close(dirc)
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("env up printed no URI: %v", err)
	}
	go io.Copy(io.Discard, stdout)
	select {
	case dir = <-dirc:
	case <-time.After(10 * time.Second):
	}
	if dir == "" {
		t.Fatal("env up did not log its cluster directory")
	}
	return strings.TrimSpace(line), dir
}

func checkThoughtsDim(t *testing.T, uri string, want int) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), uri)
	if err != nil {
		t.Fatalf("psql-style URI %q does not connect: %v", uri, err)
	}
	defer conn.Close(context.Background())
	var typ string
	if err := conn.QueryRow(context.Background(), `SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'public.thoughts'::regclass AND attname = 'embedding'`).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	if typ != "vector("+strconv.Itoa(want)+")" {
		t.Errorf("thoughts.embedding is %s, want vector(%d)", typ, want)
	}
}

// checkServerVersion checks that the database at uri runs PostgreSQL major.
func checkServerVersion(t *testing.T, uri string, major int) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var num int
	if err := conn.QueryRow(context.Background(), `SELECT current_setting('server_version_num')::int`).Scan(&num); err != nil {
		t.Fatal(err)
	}
	if num/10000 != major {
		t.Errorf("server_version_num is %d, want %dxxxx", num, major)
	}
}

// postmasterOf reads the postmaster PID of the cluster in dir, failing the test without one.
func postmasterOf(t *testing.T, dir string) int {
	t.Helper()
	pid := scratch.SandboxPID(dir)
	if pid == 0 {
		t.Fatalf("no postmaster.pid in %s", dir)
	}
	return pid
}

// TestEnvUpSIGTERMRemovesEverything: env up --pg N gives a database of PostgreSQL N with the
// environment and the prerequisites at the dimension asked for (N is the version the tests run
// on: 15, or 17 under `make test-pg17`), and SIGTERM removes everything.
func TestEnvUpSIGTERMRemovesEverything(t *testing.T) {
	scratchtest.NeedPostgres(t)
	major := scratchtest.Major(t)
	cmd := exec.Command(binary(t), "env", "up", "--dim", "1024", "--pg", strconv.Itoa(major))
	uri, dir := envUp(t, cmd)
	checkThoughtsDim(t, uri, 1024)
	checkServerVersion(t, uri, major)
	pm := postmasterOf(t, dir)
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("env up after SIGTERM: %v, want exit 0", err)
	}
	if err := scratchtest.Gone(pm, dir); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
}

// TestEnvUpSIGKILLLeavesNoServer kills ledgercheck without a chance to clean up: the
// postmaster must die with it (parent-death signal) and the next run sweeps the directory.
func TestEnvUpSIGKILLLeavesNoServer(t *testing.T) {
	scratchtest.NeedPostgres(t)
	shm := dsmSegments()
	cmd := exec.Command(binary(t), "env", "up", "--dim", "1536")
	_, dir := envUp(t, cmd)
	pm := postmasterOf(t, dir)
	cmd.Process.Kill()
	cmd.Wait()
	if err := scratchtest.Gone(pm, ""); err != nil {
		t.Fatal(err)
	}
	if now := dsmSegments(); len(now) > len(shm) {
		t.Errorf("PostgreSQL shared memory segments in /dev/shm: %v before, %v after", shm, now)
	}
	s, err := scratch.Start(context.Background(), scratch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the next run did not sweep %s, left by a killed run", dir)
		os.RemoveAll(dir)
	}
}

// dsmSegments lists PostgreSQL's dynamic shared memory segments in the host's /dev/shm that an
// embedded cluster's server could have made: as root, those owned by a sandbox's user id of its
// own (other servers of the machine make segments too); otherwise all of them.
func dsmSegments() []string {
	m, _ := filepath.Glob("/dev/shm/PostgreSQL.*")
	if os.Geteuid() != 0 {
		return m
	}
	var own []string
	for _, p := range m {
		if st, err := os.Stat(p); err == nil && scratch.IsRunUID(st.Sys().(*syscall.Stat_t).Uid) {
			own = append(own, p)
		}
	}
	return own
}

// TestEnvUpAsUnprivilegedUser runs the binary as an ordinary OS user (when the tests run as
// root): the cluster must boot without any of root's privileges.
func TestEnvUpAsUnprivilegedUser(t *testing.T) {
	scratchtest.NeedPostgres(t)
	if os.Geteuid() != 0 {
		t.Skip("already unprivileged: every other test covers this case")
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Skip("no postgres OS user")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cmd := exec.Command(binary(t), "env", "up", "--dim", "1536")
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+os.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	uri, dir := envUp(t, cmd)
	checkThoughtsDim(t, uri, 1536)
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Errorf("env up as %s after SIGINT: %v, want exit 0", u.Username, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cluster directory %s remains", dir)
	}
}

func TestMissingBinariesExit3(t *testing.T) {
	cmd := exec.Command(binary(t), "env", "up", "--pg-bin", t.TempDir())
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit = %v, want 3; output %s", err, out)
	}
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "--pg-bin") {
		t.Errorf("want one line naming --pg-bin, got %q", out)
	}
}
