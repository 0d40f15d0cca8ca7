package scratch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgercheck/internal/fault"
)

// bootstrapUser is the superuser initdb creates in the embedded cluster, as on Supabase.
const bootstrapUser = "supabase_admin"

// dirPrefix starts the name of every embedded cluster's directory in the temp dir.
const dirPrefix = "ledgercheck-"

// ownerFile holds the PID of the ledgercheck process that owns a cluster directory.
const ownerFile = "ledgercheck.pid"

// clusterPort only names the socket file; the cluster listens on no TCP port.
const clusterPort = 5432

// cluster is an embedded PostgreSQL cluster in a private temp dir.
type cluster struct {
	dir     string // temp dir: data/ and the unix socket
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
	logBuf  *bytes.Buffer
}

// startCluster runs initdb and starts a postmaster listening only on a unix socket in a new
// private temp dir. When ledgercheck runs as root, both run as the `postgres` OS user (initdb
// refuses root), or as `nobody` where there is no such user.
func startCluster(ctx context.Context, binDir string) (c *cluster, err error) {
	parent := WorkDir()
	sweepStale(parent)
	dir, err := os.MkdirTemp(parent, dirPrefix)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("creating the scratch cluster directory: %w", err))
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, fault.Env(fmt.Errorf("creating the scratch cluster directory: %w", err))
	}
	c = &cluster{dir: dir, exited: make(chan struct{}), logBuf: &bytes.Buffer{}}
	defer func() {
		if err != nil {
			c.stop()
		}
	}()
	cred, err := serverCredential(dir)
	if err != nil {
		return c, err
	}
	initdb := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"),
		"-D", c.dataDir(), "-U", bootstrapUser, "--auth=trust", "--no-sync", "--no-instructions",
		"-E", "UTF8", "--locale=C")
	initdb.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
	if out, err := initdb.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return c, ctx.Err()
		}
		return c, fault.Env(fmt.Errorf("initdb failed: %v: %s", err, lastLine(out)))
	}
	c.cmd = exec.Command(filepath.Join(binDir, "postgres"),
		"-D", c.dataDir(), "-k", dir, "-p", strconv.Itoa(clusterPort),
		"-c", "listen_addresses=", "-c", "unix_socket_permissions=0700",
		"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off",
		"-c", "max_connections=100", "-c", "shared_buffers=32MB", "-c", "max_wal_size=1GB",
		"-c", "logging_collector=off", "-c", "log_min_messages=warning", "-c", "TimeZone=UTC")
	c.cmd.Env = append(os.Environ(), "LC_ALL=C")
	c.cmd.Stdout = c.logBuf
	c.cmd.Stderr = c.logBuf
	// Own process group (a terminal's Ctrl-C reaches ledgercheck, which shuts the server down in
	// order), and a parent-death signal so a killed ledgercheck takes its postmaster with it.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGQUIT}
	if err := c.startPostmaster(); err != nil {
		return c, fault.Env(fmt.Errorf("starting postgres: %w", err))
	}
	if err := c.waitReady(ctx); err != nil {
		return c, err
	}
	return c, nil
}

func (c *cluster) dataDir() string { return filepath.Join(c.dir, "data") }

// startPostmaster starts the postmaster from a goroutine locked to its OS thread for the life
// of the server: Linux sends the parent-death signal when the thread that forked the child exits,
// so the thread must outlive the server.
func (c *cluster) startPostmaster() error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine, after postgres
		if err := c.cmd.Start(); err != nil {
			started <- err
			close(c.exited)
			return
		}
		started <- nil
		c.waitErr = c.cmd.Wait()
		close(c.exited)
	}()
	return <-started
}

func (c *cluster) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		cfg, err := pgx.ParseConfig("")
		if err != nil {
			return err
		}
		cfg.Host, cfg.Port, cfg.User, cfg.Database = c.dir, clusterPort, bootstrapUser, "postgres"
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		conn, err := pgx.ConnectConfig(cctx, cfg)
		cancel()
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case <-c.exited:
			return fault.Env(fmt.Errorf("postgres exited during startup: %s", lastLine(c.logBuf.Bytes())))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(15 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fault.Env(fmt.Errorf("postgres did not accept connections within 30s: %s", lastLine(c.logBuf.Bytes())))
		}
	}
}

// stop shuts the postmaster down (fast, then immediate, then kill) and removes the directory.
func (c *cluster) stop() error {
	var errs []error
	if c.cmd != nil && c.cmd.Process != nil {
		for _, step := range []struct {
			sig  syscall.Signal
			wait time.Duration
		}{{syscall.SIGINT, 10 * time.Second}, {syscall.SIGQUIT, 5 * time.Second}, {syscall.SIGKILL, 5 * time.Second}} {
			_ = c.cmd.Process.Signal(step.sig)
			select {
			case <-c.exited:
			case <-time.After(step.wait):
				continue
			}
			break
		}
		select {
		case <-c.exited:
		default:
			errs = append(errs, fmt.Errorf("postgres (pid %d) did not stop", c.cmd.Process.Pid))
		}
	}
	if err := os.RemoveAll(c.dir); err != nil {
		errs = append(errs, fmt.Errorf("removing %s: %w", c.dir, err))
	}
	return errors.Join(errs...)
}

// serverCredential returns the credential to run initdb and postgres with: nil unless
// ledgercheck runs as root, else an unprivileged user that is given the directory.
func serverCredential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fault.Env(errors.New("running as root, but there is neither a `postgres` nor a `nobody` OS user to run the server as (initdb refuses root): create one with `useradd --system postgres`"))
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, fault.Env(fmt.Errorf("giving %s to OS user %s: %w", dir, u.Username, err))
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func lastLine(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if l := bytes.TrimSpace(lines[i]); len(l) > 0 {
			return string(l)
		}
	}
	return "(no output)"
}

// WorkDir is where embedded clusters get their private directory: $LEDGERCHECK_TMPDIR when set,
// else /dev/shm when it is a writable tmpfs (a throwaway cluster in memory boots about twice as
// fast: initdb and database copies are file-system bound), else the system temp dir ($TMPDIR).
func WorkDir() string {
	if d := os.Getenv("LEDGERCHECK_TMPDIR"); d != "" {
		return d
	}
	const shm = "/dev/shm"
	var fs syscall.Statfs_t
	if err := syscall.Statfs(shm, &fs); err == nil && fs.Type == tmpfsMagic &&
		fs.Bavail*uint64(fs.Bsize) >= 1<<30 && syscall.Access(shm, 0o2|0o1) == nil {
		return shm
	}
	return os.TempDir()
}

// tmpfsMagic is the file-system type of tmpfs in statfs(2).
const tmpfsMagic = 0x01021994

// sweepStale removes cluster directories whose owning ledgercheck process no longer exists: what
// a run killed with SIGKILL leaves (its postmaster has already died of the parent-death signal).
// Directories of live runs, and anything without an owner file, are left alone.
func sweepStale(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, dirPrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(string(bytes.TrimSpace(b)))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		if pm := PostmasterPID(dir); pm > 0 && processAlive(pm) {
			continue // the server outlived its owner; never remove a running server's files
		}
		os.RemoveAll(dir)
	}
}

// PostmasterPID reads the postmaster's PID from an embedded cluster's directory ([Server.Dir]),
// or returns 0 when there is none.
func PostmasterPID(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	pid, _ := strconv.Atoi(string(bytes.TrimSpace(line)))
	return pid
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
