package scratchtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// DSNServer is a plain PostgreSQL server that stands in, in tests, for a server a user points
// --dsn at (a CI service container): its bootstrap superuser is `postgres`, it trusts every
// connection on its unix socket, and it has pgvector. Unlike the embedded cluster it runs
// outside any sandbox, as the server of a CI job does.
type DSNServer struct {
	// Dir holds the data directory and the socket.
	Dir string
	// DSN connects to its maintenance database as the superuser.
	DSN string

	cmd    *exec.Cmd
	exited chan struct{}
}

// DSNServerOptions configure a [DSNServer].
type DSNServerOptions struct {
	// Preload is the server's shared_preload_libraries (e.g. "ledgercheck_guard"), "" for none.
	// ledgercheck_guard is left out on PostgreSQL 16 and later, which enforce its rules
	// themselves and have no such module: a test that asks for a guarded server gets one there.
	Preload string
	// PGBin is the directory of the server binaries; "" means scratch.FindBinDir("", 0).
	PGBin string
	// Superuser names the bootstrap superuser (default postgres, as in a postgres container).
	Superuser string
	// Settings are more server settings, "name=value" (e.g. "max_prepared_transactions=4").
	Settings []string
}

// StartDSNServer runs initdb and starts a server on a unix socket in a new temp dir. When the
// tests run as root it runs as the `postgres` OS user (initdb refuses root). The server dies with
// the test process.
func StartDSNServer(opts DSNServerOptions) (s *DSNServer, err error) {
	bin, err := scratch.FindBinDir(opts.PGBin, 0)
	if err != nil {
		return nil, err
	}
	if opts.Superuser == "" {
		opts.Superuser = "postgres"
	}
	dir, err := os.MkdirTemp("", "lcdsn-")
	if err != nil {
		return nil, err
	}
	s = &DSNServer{Dir: dir, exited: make(chan struct{})}
	defer func() {
		if err != nil {
			s.Stop()
			s = nil
		}
	}()
	cred, err := serverCredential(dir)
	if err != nil {
		return s, err
	}
	if err := initialized(bin, opts.Superuser, cred, filepath.Join(dir, "data")); err != nil {
		return s, err
	}
	args := []string{"-D", filepath.Join(dir, "data"), "-k", dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off",
		// Shared memory segments in the data directory, not the host's /dev/shm, where tests
		// look for segments an embedded cluster might leave.
		"-c", "dynamic_shared_memory_type=mmap"}
	if version, _ := os.ReadFile(filepath.Join(dir, "data", "PG_VERSION")); opts.Preload == "ledgercheck_guard" && strings.TrimSpace(string(version)) != "15" {
		opts.Preload = ""
	}
	if opts.Preload != "" {
		args = append(args, "-c", "shared_preload_libraries="+opts.Preload)
	}
	for _, kv := range opts.Settings {
		args = append(args, "-c", kv)
	}
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), args...)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return s, err
	}
	defer log.Close()
	s.cmd.Stdout, s.cmd.Stderr = log, log
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // the parent-death signal follows the thread that started the server
		var perr error
		exited := false
		defer func() {
			if perr != nil { // a bug: said once, to whoever waits
				fault.Offer(started, perr)
				if !exited {
					close(s.exited)
				}
			}
		}()
		defer fault.Recover(&perr)
		if err := s.cmd.Start(); err != nil {
			started <- err
			exited = true
			close(s.exited)
			return
		}
		started <- nil
		s.cmd.Wait()
		exited = true
		close(s.exited)
	}()
	if err := <-started; err != nil {
		return s, err
	}
	s.DSN = fmt.Sprintf("host=%s port=5432 user=%s dbname=postgres", dir, opts.Superuser)
	return s, s.waitReady()
}

// serverCredential is who the server runs as: the postgres OS user when the tests run as root
// (who then owns dir), else the tests' own user (nil).
// initdbs are the data directories initdb wrote in this test process, one per binary directory
// and superuser, which each new server copies: initdb's bootstrap costs a second or two of CPU,
// a copy a few milliseconds, and the tests start dozens of servers. [Main] removes them.
var initdbs struct {
	mu   sync.Mutex
	root string
	dirs map[string]string
}

// initialized writes a fresh data directory at data, as initdb would for bin and superuser (as
// cred's user): a copy of the first one this process's initdb wrote.
func initialized(bin, superuser string, cred *syscall.Credential, data string) error {
	initdbs.mu.Lock()
	defer initdbs.mu.Unlock()
	key := bin + "\x00" + superuser
	src, ok := initdbs.dirs[key]
	if !ok {
		if initdbs.root == "" {
			root, err := os.MkdirTemp("", "lcinitdb-")
			if err != nil {
				return err
			}
			if err := os.Chmod(root, 0o755); err != nil { // the postgres OS user's initdb goes through it
				return err
			}
			initdbs.root, initdbs.dirs = root, map[string]string{}
		}
		holder := filepath.Join(initdbs.root, strconv.Itoa(len(initdbs.dirs)))
		if err := os.Mkdir(holder, 0o755); err != nil {
			return err
		}
		if _, err := serverCredential(holder); err != nil {
			return err
		}
		src = filepath.Join(holder, "data")
		initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", src, "-U", superuser,
			"--auth=trust", "--no-sync", "--no-instructions", "-E", "UTF8", "--locale=C")
		initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if out, err := initdb.CombinedOutput(); err != nil {
			return fmt.Errorf("initdb: %w: %s", err, out)
		}
		initdbs.dirs[key] = src
	}
	// cp -a keeps the owner (the postgres OS user when the tests run as root) and modes.
	if out, err := exec.Command("cp", "-a", src, data).CombinedOutput(); err != nil {
		return fmt.Errorf("copying the initialized data directory: %w: %s", err, out)
	}
	return nil
}

// removeInitdbs removes the data directories initdb wrote for this process.
func removeInitdbs() {
	initdbs.mu.Lock()
	defer initdbs.mu.Unlock()
	if initdbs.root != "" {
		os.RemoveAll(initdbs.root)
		initdbs.root, initdbs.dirs = "", nil
	}
}

func serverCredential(dir string) (*syscall.Credential, error) {
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, errors.New("tests run as root and there is no `postgres` OS user to run the --dsn stand-in server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	return cred, nil
}

// waitReady waits until the server takes connections; it fails when the server exits, or has
// not started after 1500 tries 20 ms apart.
func (s *DSNServer) waitReady() error {
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, s.DSN)
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("the --dsn stand-in server exited: %s", s.LastLogLine())
		case <-time.After(20 * time.Millisecond):
		}
		if i == 1500 {
			return fmt.Errorf("the --dsn stand-in server did not start: %w", err)
		}
	}
}

// LastLogLine returns the server log's last FATAL line (why it did not start), else its last line.
func (s *DSNServer) LastLogLine() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "FATAL:") {
			return strings.TrimSpace(lines[i])
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}

// Stop stops the server and removes its directory.
func (s *DSNServer) Stop() error {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.exited:
		case <-time.After(20 * time.Second):
			s.cmd.Process.Kill()
			<-s.exited
		}
	}
	return os.RemoveAll(s.Dir)
}

var (
	dsnOnce   sync.Once
	dsnServer *DSNServer
	dsnErr    error
)

// SharedDSNServer returns the test binary's --dsn stand-in server (with ledgercheck's guard
// preloaded where the server is PostgreSQL 15, as a hardened server would), started on first
// use and stopped by [Main]. It skips, or fails under CI=true, when it cannot be started.
func SharedDSNServer(t testing.TB) *DSNServer {
	t.Helper()
	dsnOnce.Do(func() { dsnServer, dsnErr = StartDSNServer(DSNServerOptions{Preload: "ledgercheck_guard"}) })
	if dsnErr != nil {
		Unavailable(t, dsnErr)
	}
	return dsnServer
}

// StopSharedDSNServer stops the shared --dsn stand-in server if it was started, removes the
// initdb copies the package's stand-in servers started from, and returns code, or 1 when
// stopping failed; a TestMain that does not use [Main] calls it after m.Run, when every server
// of the package has stopped.
func StopSharedDSNServer(code int) int {
	defer removeInitdbs()
	if dsnServer != nil {
		if err := dsnServer.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "scratchtest: stopping the --dsn stand-in server: %v\n", err)
			code = max(code, 1)
		}
	}
	return code
}

// Conn connects to the server's maintenance database as the superuser, closed when t ends.
func (s *DSNServer) Conn(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), s.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
