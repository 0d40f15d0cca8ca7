package main

// Killing a running check, and several checks at once, on the built binary: exit codes and what
// is left behind (postmasters, cluster directories, --dsn databases).

import (
	"bufio"
	"context"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// running is a `ledgercheck check` started from the repository root.
type running struct {
	cmd    *exec.Cmd
	dir    string // the embedded cluster's directory, "" with --dsn
	ready  chan struct{}
	stderr strings.Builder
	mu     sync.Mutex
	done   chan struct{}
}

var serverReadyRE = regexp.MustCompile(`^check: server ready`)

// startCheck starts the built binary's check with args; ready is closed when its progress says
// the scratch server is ready.
func startCheck(t *testing.T, args ...string) *running {
	t.Helper()
	r := &running{ready: make(chan struct{}), done: make(chan struct{})}
	r.cmd = exec.Command(binary(t), append([]string{"check", "--format", "json"}, args...)...)
	r.cmd.Dir = "../.."
	r.cmd.Stdout = io.Discard
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // dies with the test binary
	pipe, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(r.done)
		sc := bufio.NewScanner(pipe)
		readied := false
		for sc.Scan() {
			line := sc.Text()
			r.mu.Lock()
			r.stderr.WriteString(line + "\n")
			if m := clusterDirRE.FindStringSubmatch(line); m != nil {
				r.dir = m[1]
			}
			r.mu.Unlock()
			if !readied && serverReadyRE.MatchString(line) {
				readied = true
				close(r.ready)
			}
		}
	}()
	return r
}

// wait waits for the process to exit and returns its exit code and stderr.
func (r *running) wait(t *testing.T) (int, string) {
	t.Helper()
	err := r.cmd.Wait()
	<-r.done
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return code, r.stderr.String()
}

func (r *running) waitReady(t *testing.T) {
	t.Helper()
	select {
	case <-r.ready:
	case <-r.done:
		code, errs := r.wait(t)
		t.Fatalf("check exited (%d) before its server was ready: %s", code, errs)
	case <-time.After(60 * time.Second):
		r.cmd.Process.Kill()
		t.Fatal("check's server was not ready within 60s")
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// Interrupting a running check, embedded mode: exit 3 with "interrupted by SIGTERM" (or SIGINT),
// the postmaster stopped and the cluster directory removed.
func TestCheckInterruptedLeavesNothing(t *testing.T) {
	scratchtest.NeedPostgres(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			r := startCheck(t)
			r.waitReady(t)
			r.mu.Lock()
			dir := r.dir
			r.mu.Unlock()
			if dir == "" {
				t.Fatal("check did not log its cluster directory")
			}
			pm := postmasterOf(t, dir)
			r.cmd.Process.Signal(sig)
			code, errs := r.wait(t)
			name := map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT"}[sig]
			want := "ledgercheck: interrupted by " + name + "; whatever this run started (scratch servers, databases) was removed"
			if code != 3 || lastLine(errs) != want || strings.Contains(errs, "goroutine ") {
				t.Errorf("after %s: exit %d, stderr %q; want exit 3 and %q", name, code, errs, want)
			}
			if err := scratchtest.Gone(pm, dir); err != nil {
				t.Errorf("after %s: %v", name, err)
			}
		})
	}
}

// Interrupting a running check in --dsn mode: every database and role it created is dropped.
func TestCheckInterruptedWithDSNDropsItsDatabases(t *testing.T) {
	scratchtest.NeedPostgres(t)
	ctx := context.Background()
	dsn := scratchtest.SharedDSNServer(t).DSN
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func() int {
		var n int
		if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_database WHERE datname LIKE 'ledgercheck\_%') + (SELECT count(*) FROM pg_roles WHERE rolname LIKE 'ledgercheck\_%')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	r := startCheck(t, "--dsn", dsn)
	r.waitReady(t)
	// Wait until the run has databases of its own on the server, then interrupt it.
	deadline := time.Now().Add(30 * time.Second)
	for count() == 0 {
		if time.Now().After(deadline) {
			r.cmd.Process.Kill()
			t.Fatal("check created no database on the --dsn server")
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.cmd.Process.Signal(syscall.SIGTERM)
	code, errs := r.wait(t)
	if code != 3 || !strings.HasPrefix(lastLine(errs), "ledgercheck: interrupted by SIGTERM") {
		t.Errorf("exit %d, stderr %q; want exit 3 and interrupted by SIGTERM", code, errs)
	}
	if n := count(); n != 0 {
		t.Errorf("%d ledgercheck_* databases and roles remain on the --dsn server after SIGTERM", n)
	}
}

// Four checks at once on one machine, embedded mode: each its own cluster directory (and socket
// inside it), all pass, and nothing is left.
func TestFourChecksAtOnce(t *testing.T) {
	scratchtest.NeedPostgres(t)
	if testing.Short() {
		t.Skip("four whole gates at once")
	}
	runs := make([]*running, 4)
	for i := range runs {
		runs[i] = startCheck(t)
	}
	dirs := map[string]bool{}
	for i, r := range runs {
		code, errs := r.wait(t)
		if code != 0 {
			t.Errorf("run %d: exit %d, want 0; stderr %s", i, code, errs)
		}
		if r.dir == "" {
			t.Errorf("run %d logged no cluster directory", i)
			continue
		}
		if dirs[r.dir] {
			t.Errorf("two runs used %s", r.dir)
		}
		dirs[r.dir] = true
	}
	for dir := range dirs {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("cluster directory %s remains", dir)
		}
		if out, _ := exec.Command("pgrep", "-f", "postgres -D "+dir).Output(); len(out) > 0 {
			t.Errorf("a postgres of %s is still running: %s", dir, out)
		}
	}
}
