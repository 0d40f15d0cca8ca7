package scratch_test

// The defence layers of the embedded cluster, each attacked on its own. Layer 1 (the role
// guard: user SQL cannot grant itself pg_execute_server_program) is switched off here with
// StartUnguarded and the superuser grants the install role the server-program and server-file
// roles, so every test starts where an attacker who beat layer 1 would be: able to run shell
// commands and read and write files as the server.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// escalated starts an unguarded embedded cluster whose install role holds the roles layer 1
// would have kept from it, and returns it with a database.
func escalated(t *testing.T) (*scratch.Server, *scratch.Database) {
	t.Helper()
	scratchtest.NeedPostgres(t)
	ctx := context.Background()
	s, err := scratch.StartUnguarded(ctx, scratch.Options{Cache: true})
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	t.Cleanup(func() { s.Close() })
	conn, err := pgx.ConnectConfig(ctx, s.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `GRANT pg_execute_server_program, pg_read_server_files, pg_write_server_files TO postgres`); err != nil {
		t.Fatal(err)
	}
	db, err := s.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s, db
}

// shell runs script with sh inside the cluster's sandbox through COPY ... TO PROGRAM as the
// install role, and returns what it printed (stdout and stderr).
var shellRuns atomic.Int64

func shell(t *testing.T, s *scratch.Server, db *scratch.Database, script string) string {
	t.Helper()
	name := fmt.Sprintf("shell-%d.out", shellRuns.Add(1))
	sql := fmt.Sprintf("COPY (SELECT 1) TO PROGRAM $sh$cat >/dev/null; {\n%s\n} > /run/ledgercheck/data/%s 2>&1; true$sh$", script, name)
	if err := sqlscript.ExecFile(context.Background(), db, "attack.sql", []byte(sql)); err != nil {
		t.Fatalf("COPY TO PROGRAM as the escalated install role: %v", err)
	}
	out, err := os.ReadFile(filepath.Join(s.Dir(), "data", name))
	if err != nil {
		t.Fatalf("the shell's output: %v", err)
	}
	return string(out)
}

// Layer 2: a shell started by the server sees no host file outside /usr, no other run, no
// process but the cluster's, no network, and can write nowhere but the cluster's directory.
func TestLayer2SandboxContainsServerPrograms(t *testing.T) {
	s, db := escalated(t)
	other, _ := escalated(t) // a concurrent run

	outside := t.TempDir()
	if err := os.Chmod(outside, 0o777); err != nil {
		t.Fatal(err)
	}
	out := shell(t, s, db, fmt.Sprintf("echo pwned > %s/pwned", outside))
	if _, err := os.Stat(filepath.Join(outside, "pwned")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the server's shell wrote %s/pwned on the host (%v)", outside, err)
	}
	if !strings.Contains(out, "No such file or directory") && !strings.Contains(out, "Directory nonexistent") {
		t.Errorf("writing outside the run did not fail as a missing path: %q", out)
	}
	if out := shell(t, s, db, "ls "+other.Dir()); !strings.Contains(out, "No such file or directory") {
		t.Errorf("the shell can see the other run's %s: %q", other.Dir(), out)
	}
	if out := shell(t, s, db, "ls -a "+filepath.Dir(s.Dir())); strings.Contains(out, filepath.Base(other.Dir())) || strings.Contains(out, filepath.Base(s.Dir())) {
		t.Errorf("the shell can list the runs in %s: %q", filepath.Dir(s.Dir()), out)
	}

	allowed := []string{"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "run", "sbin", "tmp", "usr"}
	for _, name := range strings.Fields(shell(t, s, db, "ls /")) {
		if !slices.Contains(allowed, name) {
			t.Errorf("the sandbox's / holds %q; want only %v", name, allowed)
		}
	}
	if got := strings.Fields(shell(t, s, db, "ls /etc")); !slices.Equal(got, []string{"group", "ld.so.cache", "passwd"}) && !slices.Equal(got, []string{"group", "passwd"}) {
		t.Errorf("/etc in the sandbox holds %v; want group, passwd (and ld.so.cache)", got)
	}
	if out := shell(t, s, db, "cat /etc/passwd"); strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "ledgercheck:x:") {
		t.Errorf("/etc/passwd in the sandbox: %q, want the sandbox's own account only", out)
	}
	var ifaces []string
	for _, l := range strings.Split(shell(t, s, db, "sed 1,2d /proc/net/dev"), "\n") {
		if name, _, ok := strings.Cut(l, ":"); ok {
			ifaces = append(ifaces, strings.TrimSpace(name))
		}
	}
	if !slices.Equal(ifaces, []string{"lo"}) {
		t.Errorf("network interfaces in the sandbox: %v, want only lo", ifaces)
	}
	for script, want := range map[string]string{
		"touch /usr/x":                         "Read-only file system",
		"touch /tmp/y && echo private-tmp":     "private-tmp",
		fmt.Sprintf("kill -0 %d", os.Getpid()): "No such process", // ledgercheck is not visible
	} {
		if out := shell(t, s, db, script); !strings.Contains(out, want) {
			t.Errorf("%s: %q, want %q", script, out, want)
		}
	}
}

// Layer 3: the socket asks for the run's secret, from the host and from inside the sandbox, so
// OS-level access as the server's user does not give superuser access, and the server cannot
// rewrite its own authentication rules.
func TestLayer3SocketNeedsTheRunsSecret(t *testing.T) {
	s, db := escalated(t)
	ctx := context.Background()
	for _, c := range []struct{ user, password string }{{"supabase_admin", ""}, {"supabase_admin", "postgres"}, {"postgres", ""}} {
		cfg := s.AdminConfig()
		cfg.User, cfg.Password = c.user, c.password
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			conn.Close(ctx)
			t.Errorf("connected to the run's socket as %s with password %q", c.user, c.password)
			continue
		}
		var pe *pgconn.PgError
		if !strings.Contains(err.Error(), "password") && !(errors.As(err, &pe) && pe.Code == "28P01") {
			t.Errorf("as %s: %v, want a password authentication failure", c.user, err)
		}
	}
	bin, err := scratch.FindBinDir("", 0)
	if err != nil {
		t.Fatal(err)
	}
	psql := filepath.Join(bin, "psql")
	if _, err := os.Stat(psql); err != nil { // make setup PG=17's tree has none; any psql will do
		psql = filepath.Join(scratch.DefaultBinDir, "psql")
	}
	out := shell(t, s, db, fmt.Sprintf("%s -w -h /run/ledgercheck/sock -U supabase_admin -d postgres -c 'ALTER ROLE postgres SUPERUSER'; echo 'local all all trust' >> /run/ledgercheck/conf/pg_hba.conf", psql))
	if !strings.Contains(out, "password") {
		t.Errorf("psql from inside the sandbox: want a password failure, got:\n%s", out)
	}
	if os.Geteuid() == 0 && !strings.Contains(out, "Permission denied") {
		t.Errorf("the server could rewrite its pg_hba.conf:\n%s", out)
	}
	conn, err := pgx.ConnectConfig(ctx, s.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var super bool
	if err := conn.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = 'postgres'`).Scan(&super); err != nil || super {
		t.Errorf("postgres is a superuser (%v) after the attack", err)
	}
}

// Layer 4: a process the server starts in the background, in a session of its own, dies with
// the run.
func TestLayer4ProcessesDieWithTheRun(t *testing.T) {
	s, db := escalated(t)
	const marker = "4242.5"
	shell(t, s, db, "setsid nohup sleep "+marker+" </dev/null >/dev/null 2>&1 &")
	// The shell forks and returns before its child has become sleep: look a bounded number of
	// times.
	for i := 0; len(processesWith("sleep\x00"+marker)) == 0; i++ {
		if i == 200 {
			t.Fatal("the background sleep is not running: the test cannot observe it")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if pids := processesWith("sleep\x00" + marker); len(pids) > 0 {
		t.Errorf("processes %v started by the server outlived the run", pids)
	}
}

// processesWith returns the host PIDs whose command line starts with prefix (arguments are
// separated by NUL bytes).
func processesWith(prefix string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.HasPrefix(string(b), prefix) {
			pids = append(pids, pid)
		}
	}
	return pids
}
