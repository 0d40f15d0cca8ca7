package main

// The attacks of issue 18, run as written against the built binary, with every defence layer on:
// no file appears outside the run, no process outlives it, no privilege is gained, nothing is
// left on a --dsn server, and every failure is one line with its documented exit code. The
// layers are attacked one at a time in ledgercheck/scratch (attack_test.go, server_test.go) and
// ledgercheck/scratch/guard.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// run runs the built binary with args from the repository root and returns its exit code,
// stdout and stderr.
func run(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	return execute(t, cmd)
}

// execute runs cmd and returns its exit code, stdout and stderr; a command that could not run
// fails the test.
func execute(t *testing.T, cmd *exec.Cmd) (int, string, string) {
	t.Helper()
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

// attackFiles writes the escapes into dir and returns their paths by name. Each tries to
// run `id` into a file of target, a directory anyone may write.
func attackFiles(t *testing.T, dir, target string) map[string]string {
	t.Helper()
	files := map[string]string{
		"static.sql": fmt.Sprintf("GRANT pg_execute_server_program TO postgres;\nCOPY (SELECT 1) TO PROGRAM 'id > %s/static';\nNOTIFY pgrst, 'reload schema';\n", target),
		"dynamic.sql": fmt.Sprintf("DO $$ BEGIN EXECUTE 'GRANT pg_execute_server_program TO ' || quote_ident(current_user); END $$;\n"+
			"DO $$ BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''id > %s/dynamic'''; END $$;\nNOTIFY pgrst, 'reload schema';\n", target),
		"files.sql": fmt.Sprintf("GRANT pg_write_server_files, pg_read_server_files TO postgres;\nCOPY (SELECT 'x') TO '%s/written';\nNOTIFY pgrst, 'reload schema';\n", target),
	}
	paths := map[string]string{}
	for name, sql := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

// openTarget returns a directory the attacks aim at: writable by anyone, as /tmp/x of the issue.
func openTarget(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "lc-target-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	return dir
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s appeared in %s: an attack got out", e.Name(), dir)
	}
}

// TestAttacksAsWrittenAreRefused runs the reproductions (snapshot --install and lint
// --install of each, check with the three as ports of one run) on a --dsn server, the server a
// run shares with whatever else it holds, and check in the embedded cluster. The embedded
// cluster's snapshot --install and lint --install of each file are not run again: their install
// is check's (install.Footprint, through the gate's one pipeline: internal/cli's
// TestCheckRunsEveryStep), and the six runs cost about 4 s of CPU.
func TestAttacksAsWrittenAreRefused(t *testing.T) {
	scratchtest.NeedPostgres(t)
	target := openTarget(t)
	dir := t.TempDir()
	files := attackFiles(t, dir, target)
	names := []string{"static.sql", "dynamic.sql", "files.sql"}
	var ports []configPort
	for _, name := range names {
		ports = append(ports, configPort{Name: strings.TrimSuffix(name, ".sql"), File: files[name], Dim: 1024})
	}
	config := shippedConfigWithPorts(t, dir, ports)
	dsn := scratchtest.SharedDSNServer(t).DSN
	for _, mode := range []struct {
		name    string
		extra   []string
		written bool // the commands too
	}{{"embedded", nil, false}, {"dsn", []string{"--dsn", dsn}, true}} {
		for _, name := range names {
			if !mode.written {
				break
			}
			for _, args := range [][]string{
				{"snapshot", "-q", "--install", files[name], "--dim", "1536"},
				{"lint", "-q", "--install", files[name]},
			} {
				t.Run(mode.name+"/"+args[0]+"/"+name, func(t *testing.T) {
					code, out, errs := run(t, nil, append(args, mode.extra...)...)
					refused(t, code, out, errs)
				})
			}
		}
		t.Run(mode.name+"/check", func(t *testing.T) {
			code, out, errs := run(t, nil, append([]string{"check", "-q", "--format", "json", "--config", config, "--allow-outside-repo"}, mode.extra...)...)
			refused(t, code, out, errs)
			var rep struct {
				Phases []struct {
					Name     string
					Findings []struct{ Message string }
				}
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("the report is not JSON: %v", err)
			}
			said := map[string]bool{}
			for _, p := range rep.Phases {
				for _, f := range p.Findings {
					if strings.Contains(f.Message, "permission denied to grant role") {
						said[p.Name] = true
					}
				}
			}
			for _, port := range ports {
				if !said["install "+port.Name] {
					t.Errorf("the install of %s does not say the grant was refused; phases saying it: %v", port.Name, said)
				}
			}
		})
	}
	assertEmpty(t, target)
}

// refused fails t unless a run exited 1 saying a grant was refused, with at most one line on
// stderr.
func refused(t *testing.T, code int, out, errs string) {
	t.Helper()
	if code != 1 {
		t.Errorf("exit %d, want 1 (the install is refused, a finding); stderr %q", code, errs)
	}
	if strings.Contains(out+errs, "goroutine ") || strings.Count(errs, "\n") > 1 {
		t.Errorf("want at most one line on stderr, got %q", errs)
	}
	if !strings.Contains(out+errs, "permission denied to grant role") {
		t.Errorf("the report does not say the grant was refused:\n%s%s", errs, firstLines(out, 30))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// TestDSNMigrationCannotMakeDatabases: a migration's CREATE DATABASE is a finding, and no
// database is left.
func TestDSNMigrationCannotMakeDatabases(t *testing.T) {
	srv := scratchtest.SharedDSNServer(t)
	evil := filepath.Join(t.TempDir(), "createdb.sql")
	os.WriteFile(evil, []byte("CREATE DATABASE lc_evil;\nNOTIFY pgrst, 'reload schema';\n"), 0o644)
	code, out, errs := run(t, nil, "check", "-q", "--format", "json", "--dsn", srv.DSN, "--port", evil, "--port-dim", "1024")
	if code != 1 || !strings.Contains(out, "permission denied to create database") {
		t.Errorf("exit %d, want 1 with the refusal as a finding; stderr %q", code, errs)
	}
	var n int
	if err := srv.Conn(t).QueryRow(context.Background(), `SELECT count(*) FROM pg_database WHERE datname = 'lc_evil' OR datname LIKE 'ledgercheck\_%'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d databases (lc_evil or ledgercheck_*) on the server after the run (%v)", n, err)
	}
}

// TestFourRunsOnAFreshServerLeaveNothing: four runs that create a role (the shipped port) at once
// on a server that has none of the Supabase roles: they take turns, each passes, and the server
// ends as it began.
func TestFourRunsOnAFreshServerLeaveNothing(t *testing.T) {
	scratchtest.NeedPostgres(t)
	srv, err := scratchtest.StartDSNServer(scratchtest.DSNServerOptions{Preload: "ledgercheck_guard"})
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	defer srv.Stop()
	admin := srv.Conn(t)
	before := serverInventory(t, admin)
	var wg sync.WaitGroup
	codes := make([]int, 4)
	errs := make([]string, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, errs[i] = run(t, nil, "rerun", "-q", "migrations/ports/decision_ledger_1024.sql", "--dim", "1024", "--dsn", srv.DSN)
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Errorf("run %d: exit %d: %s", i, c, errs[i])
		}
	}
	if after := serverInventory(t, admin); !slices.Equal(after, before) {
		t.Errorf("the server held %v before and %v after four runs", before, after)
	}
}

// serverInventory lists a server's databases and roles (pg_* roles aside).
func serverInventory(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT 'database ' || datname FROM pg_database
		UNION ALL SELECT 'role ' || rolname FROM pg_roles WHERE rolname !~ '^pg_' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestKilledDSNRunIsCleanedUp: `check --dsn D & sleep; kill -9 $!; ledgercheck cleanup --dsn D`
// leaves nothing of the run on the server; a negative --older-than is refused.
func TestKilledDSNRunIsCleanedUp(t *testing.T) {
	scratchtest.NeedPostgres(t)
	srv, err := scratchtest.StartDSNServer(scratchtest.DSNServerOptions{Preload: "ledgercheck_guard"})
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	defer srv.Stop()
	admin := srv.Conn(t)
	before := serverInventory(t, admin)
	r := startCheck(t, "--dsn", srv.DSN)
	// Kill it once it has databases of its own on the server.
	for i := 0; ; i++ {
		var n int
		if err := admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_database WHERE datname LIKE 'ledgercheck\_%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n >= 3 {
			break
		}
		if i == 3000 {
			r.cmd.Process.Kill()
			t.Fatal("check made no databases on the server")
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.cmd.Process.Kill()
	r.wait(t)
	if after := serverInventory(t, admin); slices.Equal(after, before) {
		t.Fatal("the killed run left nothing: the test did not kill it in time to show cleanup working")
	}
	if code, _, errs := run(t, nil, "cleanup", "--dsn", srv.DSN, "--older-than=-1s"); code != 2 || strings.Count(errs, "\n") != 1 {
		t.Errorf("cleanup --older-than=-1s: exit %d, stderr %q; want exit 2 and one line", code, errs)
	}
	// The server may take a moment to notice that the killed run's sessions are gone; until then
	// the run counts as live and cleanup spares it. Bounded number of tries.
	for i := 0; ; i++ {
		if code, out, errs := run(t, nil, "cleanup", "-q", "--dsn", srv.DSN); code != 0 {
			t.Fatalf("cleanup: exit %d: %s%s", code, out, errs)
		}
		after := serverInventory(t, admin)
		if slices.Equal(after, before) {
			break
		}
		if i == 20 {
			t.Fatalf("after cleanup the server holds %v, before the run %v", after, before)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestServerDeathIsAnEnvironmentError: the scratch server killed in the middle of an install is
// exit 3 with what the server logged, not a finding about the migration.
func TestServerDeathIsAnEnvironmentError(t *testing.T) {
	scratchtest.NeedPostgres(t)
	slow := filepath.Join(t.TempDir(), "slow.sql")
	os.WriteFile(slow, []byte("SELECT pg_sleep(30);\nNOTIFY pgrst, 'reload schema';\n"), 0o644)
	cmd := exec.Command(binary(t), "snapshot", "--install", slow, "--dim", "1024")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(pipe)
	var dir string
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if m := clusterDirRE.FindStringSubmatch(sc.Text()); m != nil {
			dir = m[1]
		}
		if strings.HasPrefix(sc.Text(), "snapshot: installing") {
			break
		}
	}
	if dir == "" {
		cmd.Process.Kill()
		t.Fatalf("no cluster directory in %q", lines)
	}
	time.Sleep(300 * time.Millisecond) // into pg_sleep; the test passes either way if earlier
	syscall.Kill(scratch.SandboxPID(dir), syscall.SIGKILL)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err = cmd.Wait()
	last := lines[len(lines)-1]
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || !strings.Contains(last, "scratch server died") {
		t.Errorf("exit %v, last line %q; want exit 3 saying the scratch server died", err, last)
	}
}

// TestSIGKILLDuringInitdbLeavesNothing: ledgercheck killed while initdb runs takes initdb with it
// (here an initdb that only sleeps, so the kill cannot come too late), and the next run sweeps
// the directory.
func TestSIGKILLDuringInitdbLeavesNothing(t *testing.T) {
	scratchtest.NeedPostgres(t)
	real, err := scratch.FindBinDir("", 0)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp("", "lcslowinitdb-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	bin := filepath.Join(root, "bin")
	os.Mkdir(bin, 0o755)
	os.Symlink(filepath.Join(real, "postgres"), filepath.Join(bin, "postgres"))
	os.Symlink(filepath.Join(filepath.Dir(real), "lib"), filepath.Join(root, "lib"))
	const marker = "1717.25"
	os.WriteFile(filepath.Join(bin, "initdb"), []byte("#!/bin/sh\nexec sleep "+marker+"\n"), 0o755)

	cmd := exec.Command(binary(t), "env", "up", "--pg-bin", bin)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; len(processesWith("sleep\x00"+marker)) == 0; i++ {
		if i == 1000 {
			cmd.Process.Kill()
			t.Fatal("the slow initdb never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for i := 0; len(processesWith("sleep\x00"+marker)) > 0; i++ {
		if i == 500 {
			t.Fatal("initdb outlived the ledgercheck that started it")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processesWith returns the PIDs whose command line starts with prefix (arguments separated by
// NUL bytes).
func processesWith(prefix string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.HasPrefix(string(b), prefix) {
			pids = append(pids, pid)
		}
	}
	return pids
}
