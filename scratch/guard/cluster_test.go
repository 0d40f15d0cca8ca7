package guard_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgercheck/migrations"
	"ledgercheck/scratch/scratchtest"
)

// pgBin holds Debian's PostgreSQL 15 server binaries; the guard exists for 15 only.
const pgBin = "/usr/lib/postgresql/15/bin"

// superuser is the bootstrap superuser initdb creates, named as on Supabase.
const superuser = "supabase_admin"

// guardSource is the module's source, whose digest the loaded module must report.
const guardSource = "c/ledgercheck_guard.c"

// cluster is a throwaway PostgreSQL 15 cluster of one test, listening on a unix socket only, with
// trust authentication for its own connections and the Supabase roles of migrations/env.
type cluster struct {
	dir    string // private directory: data/, the socket, the log and whatever probes write
	cmd    *exec.Cmd
	exited chan struct{}
}

// startCluster runs initdb and postgres in a new private directory, with ledgercheck_guard in
// shared_preload_libraries when guard is set, and creates the roles of migrations/env/00_roles.sql
// plus two login roles for the tests, maker (CREATEROLE, not CREATEDB) and plain (no attributes),
// lets postgres create in schema public of database postgres, and puts a table there that only
// superusers and members of pg_read_all_data can read.
// Everything is stopped and removed when the test ends. When the server cannot be started (no
// PostgreSQL 15, no guard installed), the test is skipped, or fails under CI=true.
func startCluster(t *testing.T, guard bool) *cluster {
	t.Helper()
	for _, bin := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(pgBin, bin)); err != nil {
			scratchtest.Unavailable(t, fmt.Errorf("no PostgreSQL 15 server (%v): run `make setup` as root", err))
		}
	}
	// Not t.TempDir(): its parent is private to root, and the server may run as another user.
	dir, err := os.MkdirTemp("", "ledgercheck-guardtest-")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{dir: dir, exited: make(chan struct{})}
	t.Cleanup(func() { c.stop(t) })
	cred := serverCredential(t, dir)

	initdb := exec.Command(filepath.Join(pgBin, "initdb"), "-D", c.path("data"), "-U", superuser,
		"--auth=trust", "--no-sync", "--no-instructions", "-E", "UTF8", "--locale=C")
	initdb.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		scratchtest.Unavailable(t, fmt.Errorf("initdb: %v: %s", err, lastLine(out)))
	}

	args := []string{"-D", c.path("data"), "-k", dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off",
		"-c", "shared_buffers=16MB", "-c", "max_connections=20", "-c", "logging_collector=off"}
	if guard {
		args = append(args, "-c", "shared_preload_libraries=ledgercheck_guard")
	}
	logf, err := os.Create(c.path("postgres.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	c.cmd = exec.Command(filepath.Join(pgBin, "postgres"), args...)
	c.cmd.Env = append(os.Environ(), "LC_ALL=C")
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	// Its own process group, so that stop can reach every process of the server; a parent-death
	// signal, so that a killed test binary takes the server with it.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	started := make(chan error, 1)
	go func() {
		// Linux sends the parent-death signal when the forking thread exits: keep it for the
		// server's life (the goroutine never unlocks, so the thread ends with it).
		runtime.LockOSThread()
		if err := c.cmd.Start(); err != nil {
			started <- err
			close(c.exited)
			return
		}
		started <- nil
		c.cmd.Wait()
		close(c.exited)
	}()
	if err := <-started; err != nil {
		scratchtest.Unavailable(t, fmt.Errorf("starting postgres: %v", err))
	}
	c.waitReady(t)
	c.exec(t, superuser, "postgres", migrations.Roles().SQL)
	c.exec(t, superuser, "postgres", `
		CREATE ROLE maker LOGIN CREATEROLE NOCREATEDB;
		CREATE ROLE plain LOGIN;
		GRANT CREATE ON SCHEMA public TO postgres;
		CREATE TABLE public.secret (s text);
		INSERT INTO public.secret VALUES ('only for superusers and pg_read_all_data')`)
	return c
}

func (c *cluster) path(name string) string { return filepath.Join(c.dir, name) }

// waitReady waits until the server accepts connections, or reports it unavailable with the last
// line of its log when it exits first (as it does when shared_preload_libraries names a module
// that is not installed).
func (c *cluster) waitReady(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.ConnectConfig(ctx, c.config(superuser, "postgres"))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return
		}
		select {
		case <-c.exited:
			log, _ := os.ReadFile(c.path("postgres.log"))
			scratchtest.Unavailable(t, fmt.Errorf("postgres exited during startup: %s (run `make setup` as root to install ledgercheck_guard)", lastLine(log)))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(c.path("postgres.log"))
			scratchtest.Unavailable(t, fmt.Errorf("postgres accepted no connection within 60 s: %s", lastLine(log)))
		}
	}
}

// stop shuts the server down (fast shutdown, then SIGKILL to its whole process group), fails the
// test if any process of the group is left, and removes the directory.
func (c *cluster) stop(t *testing.T) {
	if c.cmd != nil && c.cmd.Process != nil {
		pgid := c.cmd.Process.Pid
		_ = c.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-c.exited:
		case <-time.After(15 * time.Second):
			t.Errorf("postgres (pid %d) ignored a fast shutdown for 15 s; killing it", pgid)
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // no-op for a group that is gone
		select {
		case <-c.exited:
		case <-time.After(10 * time.Second):
			t.Errorf("postgres (pid %d) survived SIGKILL for 10 s", pgid)
		}
		if err := waitGroupGone(pgid); err != nil {
			t.Error(err)
		}
	}
	if err := os.RemoveAll(c.dir); err != nil {
		t.Errorf("removing the cluster directory: %v", err)
	}
}

// waitGroupGone waits up to 10 s for process group pgid to have no process left.
func waitGroupGone(pgid int) error {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes of the server's group %d outlived it", pgid)
		}
	}
}

// serverCredential returns nil unless the test runs as root; then it gives dir to the OS user
// postgres (or nobody), as which initdb and postgres run: initdb refuses root.
func serverCredential(t *testing.T, dir string) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		if u, err = user.Lookup("nobody"); err != nil {
			scratchtest.Unavailable(t, errors.New("running as root without a `postgres` or `nobody` OS user to run the server as: run `useradd --system postgres`"))
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatalf("giving %s to OS user %s: %v", dir, u.Username, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// config is the configuration to connect to database db as role user over the cluster's socket.
func (c *cluster) config(user, db string) *pgx.ConnConfig {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=5432 user=%s dbname=%s sslmode=disable", c.dir, user, db))
	if err != nil {
		panic(err) // a constant format with role and directory names of our own
	}
	return cfg
}

// connect opens a session as user in db, closed when the test ends.
func (c *cluster) connect(t *testing.T, user, db string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, c.config(user, db))
	if err != nil {
		t.Fatalf("connecting as %s: %v", user, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// exec runs sql (one or more statements) in a new session as user in db, failing the test on error.
func (c *cluster) exec(t *testing.T, user, db, sql string) {
	t.Helper()
	conn := c.connect(t, user, db)
	if err := run(conn, sql); err != nil {
		t.Fatalf("as %s: %s: %v", user, oneLine(sql), err)
	}
	conn.Close(context.Background())
}

// run runs sql (one or more statements, simple protocol) on conn.
func run(conn *pgx.Conn, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := conn.Exec(ctx, sql)
	return err
}

// queryBool runs a query that returns one boolean.
func queryBool(t *testing.T, conn *pgx.Conn, sql string, args ...any) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var b bool
	if err := conn.QueryRow(ctx, sql, args...).Scan(&b); err != nil {
		t.Fatalf("%s: %v", oneLine(sql), err)
	}
	return b
}

// sourceDigest is the digest setup passes to the build: the first 16 hex digits of the sha256 of
// the module's source.
func sourceDigest(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(guardSource)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// lastLine returns the last FATAL line of a server's output (why it did not start), else its last
// line.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "FATAL:") {
			return strings.TrimSpace(lines[i])
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}

func oneLine(sql string) string { return strings.Join(strings.Fields(sql), " ") }
