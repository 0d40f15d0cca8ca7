package scratch

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/privileged"
)

// bootstrapUser is the superuser initdb creates in the embedded cluster, as on Supabase.
const bootstrapUser = "supabase_admin"

// dirPrefix starts the name of every embedded cluster's directory in the temp dir.
const dirPrefix = "ledgercheck-"

// ownerFile holds the PID of the ledgercheck process that owns a cluster directory, and
// sandboxFile the host PID of the sandbox's init process (see [SandboxPID]).
const (
	ownerFile   = "ledgercheck.pid"
	sandboxFile = "sandbox.pid"
)

// clusterPort only names the socket file; the cluster listens on no TCP port.
const clusterPort = 5432

// cluster is an embedded PostgreSQL cluster in a private temp dir, run in a sandbox.
type cluster struct {
	dir    string // the cluster's directory on the host (see sandbox.layout)
	binDir string // the PostgreSQL server binaries
	guard  string // the library to preload ("" for none; see guardFor)
	sb     *sandbox
	major  int // PostgreSQL major version of the binaries
	// adminSecret is the bootstrap superuser's password: the socket asks every client for one,
	// so OS access as the server's user does not give superuser access.
	adminSecret string
	cmd         *exec.Cmd
	initPID     int // host PID of the sandbox's init; its death ends every process of the cluster
	exited      chan struct{}
	waitErr     error
	log         *ringLog // the postmaster's stderr, the last part of it
	// cpu is the CPU time the server's processes used, counted when each postmaster stops
	// (bubblewrap's init does not pass its children's times on to getrusage).
	cpu time.Duration
	// limits are the run's resource limits (limits.go), and onSize is told the directory's size
	// by the size watchdog each time it measures it.
	limits Limits
	onSize func(size int64)
	// sandboxInit is initPID for the connections' dial function (dialSandbox), which runs on
	// other goroutines.
	sandboxInit atomic.Int64
}

// newCluster prepares a cluster's private temp dir and its bubblewrap sandbox (see sandbox.go),
// run as a user id of the run's own when ledgercheck runs as root, with an empty data directory:
// the caller fills it (initdb, or a copy of a cached cluster) and starts a postmaster that
// listens only on a unix socket in that directory (start).
func newCluster(binDir string, opts Options) (c *cluster, err error) {
	bwrap, err := findBwrap()
	if err != nil {
		return nil, err
	}
	major, err := BinMajor(binDir)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(opts.Postgres, major, "the server binaries in "+binDir+" are"); err != nil {
		return nil, err
	}
	guard, err := guardFor(binDir, major, opts.noGuard)
	if err != nil {
		return nil, err
	}
	parent := WorkDir()
	sweepStale(parent)
	dir, err := os.MkdirTemp(parent, dirPrefix)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("creating the scratch cluster directory: %w", err))
	}
	c = &cluster{dir: dir, binDir: binDir, guard: guard, major: major, exited: make(chan struct{}), log: newRingLog(64 << 10), adminSecret: newSecret(),
		limits: opts.Limits.withDefaults()}
	defer func() {
		if err != nil {
			c.stop()
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return c, fault.Env(fmt.Errorf("creating the scratch cluster directory: %w", err))
	}
	c.sb = &sandbox{bwrap: bwrap, dir: dir, prefix: installPrefix(binDir), extDir: extensionDir(binDir)}
	if os.Geteuid() == 0 {
		if c.sb.cred, err = newRunCredential(); err != nil {
			return c, err
		}
	}
	if err := c.sb.checkSocketPath(clusterPort); err != nil {
		return c, err
	}
	if err := c.sb.checkReachable(); err != nil {
		return c, err
	}
	if err := c.sb.layout(); err != nil {
		return c, fault.Env(fmt.Errorf("preparing the scratch cluster directory %s: %w", dir, err))
	}
	return c, nil
}

// serverSettings are the postmaster's settings besides its directories: what a cached cluster
// was built under is part of its key (cache.go).
var serverSettings = []string{
	"-c", "listen_addresses=", "-c", "unix_socket_permissions=0700",
	"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off",
	"-c", "max_connections=100", "-c", "shared_buffers=32MB", "-c", "max_wal_size=1GB",
	// No WAL segments kept for reuse: a stopped cluster (the cache's copy) holds one or two.
	"-c", "min_wal_size=2MB",
	// Dynamic shared memory as files in the data directory, which goes with the cluster,
	// instead of /dev/shm segments a killed server would leave behind.
	"-c", "dynamic_shared_memory_type=mmap",
	// The log is only read after a failure: the server's own lines (LOG level, so crash
	// reports are there) without the statements of user SQL.
	"-c", "logging_collector=off", "-c", "log_min_messages=log", "-c", "log_min_error_statement=panic",
	"-c", "log_checkpoints=off", "-c", "log_error_verbosity=terse", "-c", "TimeZone=UTC",
}

// initdbSettings are initdb's options besides the data directory and the password file.
// WAL segments of 1 MB instead of 16: initdb writes, and the cache copies, one segment.
var initdbSettings = []string{"-U", bootstrapUser, "--auth=scram-sha-256", "--no-sync", "--no-instructions", "-E", "UTF8", "--locale=C", "--wal-segsize=1"}

// start starts the postmaster on the cluster's data directory and waits until it accepts the
// bootstrap superuser's connections.
func (c *cluster) start(ctx context.Context) error {
	args := append([]string{
		"-D", innerDir + "/data", "-k", innerDir + "/sock", "-p", strconv.Itoa(clusterPort),
		"-c", "hba_file=" + innerDir + "/conf/pg_hba.conf",
	}, serverSettings...)
	if c.guard != "" {
		args = append(args, "-c", "shared_preload_libraries="+c.guard)
	}
	if c.limits.ScratchSize > 0 {
		// Temporary files count in the directory's size: half of it (in kB); user SQL (not a
		// superuser) cannot raise temp_file_limit (PGC_SUSET).
		args = append(args, "-c", "temp_file_limit="+strconv.FormatInt(c.limits.ScratchSize>>11, 10),
			// A checkpoint (which removes the WAL before it) once an eighth of it is WAL, its
			// writes not spread over the next WAL (with fsync off, spreading them spares nothing),
			// so that what a migration writes is mostly its data: a table's file may grow to the
			// limit itself (RLIMIT_FSIZE), and with the cluster (about 40 MB) and the WAL the
			// spread checkpoints of a quarter let pile up (twice as much, more on a loaded
			// machine), a bulk insert took the directory past half as much again as the limit,
			// where the watchdog kills the sandbox (TestScratchSizeLimitStopsABulkInsert, 294 MiB
			// of a 192 MiB limit, in a run of the whole suite on 2 cores).
			"-c", "max_wal_size="+strconv.FormatInt(max(16, c.limits.ScratchSize>>23), 10)+"MB",
			"-c", "checkpoint_completion_target=0")
	}
	c.exited = make(chan struct{})
	c.waitErr = nil
	mark := c.log.mark()
	cmd, err := c.sb.command(filepath.Join(c.binDir, "postgres"), args...)
	if err != nil {
		return fault.Env(fmt.Errorf("starting postgres in its sandbox: %w", err))
	}
	c.cmd = cmd
	c.cmd.Stdout = c.log
	c.cmd.Stderr = c.log
	if err := c.startSandboxed(); err != nil {
		return fault.Env(fmt.Errorf("starting postgres in its sandbox: %w", err))
	}
	if err := c.waitReady(ctx, mark); err != nil {
		return err
	}
	if c.limits.ScratchSize > 0 && c.onSize != nil {
		// The watch is of this start's server: its exit and its sandbox, read here (shutdown
		// clears initPID for a restart, which may come before the goroutine runs).
		exited, init := c.exited, c.initPID
		go func() {
			var perr error
			defer func() {
				if perr != nil { // a bug: the size cap is not watched any more; say so in the server's log
					fmt.Fprintf(c.log, "ledgercheck: the scratch size watch stopped: %v\n", perr)
				}
			}()
			defer fault.Recover(&perr)
			c.watchSize(exited, init)
		}()
	}
	return nil
}

// postmaster returns the host PID of the postmaster (the only child of the sandbox's init, whose
// host PID is init), or 0 when there is none.
func (c *cluster) postmaster(init int) int {
	if init <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", init, init))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 1 {
		return 0
	}
	pm, _ := strconv.Atoi(f[0])
	return pm
}

// treeCPU returns the CPU time process pid and its descendants used so far: for each, its own
// time and that of the children it reaped (/proc/PID/stat utime, stime, cutime, cstime).
func treeCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	var ticks int64
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err == nil {
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			f := strings.Fields(string(b[i+1:]))
			// Fields after the command: state is f[0]; utime, stime, cutime, cstime are
			// fields 14 to 17 of stat(5), f[11] to f[14].
			for _, x := range f[11:min(15, len(f))] {
				n, _ := strconv.ParseInt(x, 10, 64)
				ticks += n
			}
		}
	}
	d := time.Duration(ticks) * time.Second / clockTicks
	kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, k := range strings.Fields(string(kids)) {
		if n, err := strconv.Atoi(k); err == nil {
			d += treeCPU(n)
		}
	}
	return d
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on every Linux architecture Go
// supports.
const clockTicks = 100

// shutdown stops the postmaster cleanly (a fast shutdown: SIGINT), so that its data directory
// can be copied as it is, and waits for the sandbox to end. The directory stays.
func (c *cluster) shutdown() error {
	pm := c.postmaster(c.initPID)
	if pm <= 0 {
		return fmt.Errorf("no postmaster in sandbox %d", c.initPID)
	}
	c.cpu += treeCPU(c.initPID)
	if err := syscall.Kill(pm, syscall.SIGINT); err != nil {
		return fmt.Errorf("stopping the postmaster: %w", err)
	}
	select {
	case <-c.exited:
	case <-time.After(30 * time.Second):
		return errors.New("the postmaster did not stop within 30s")
	}
	if !waitGone(c.initPID, 10*time.Second) {
		return fmt.Errorf("the scratch cluster's processes (sandbox pid %d) did not stop", c.initPID)
	}
	c.cmd, c.initPID = nil, 0
	return nil
}

// initdb creates the cluster in the sandbox, with the bootstrap superuser's password (its SCRAM
// verifier, see scramVerifier) from a file that only the sandbox's user can read and that is
// removed right after.
func (c *cluster) initdb(ctx context.Context) error {
	verifier, err := scramVerifier(c.adminSecret)
	if err != nil {
		return fault.Env(fmt.Errorf("preparing initdb: %w", err))
	}
	pwfile, remove, err := c.sb.writeSecret("initdb.pw", verifier)
	if err != nil {
		return fault.Env(fmt.Errorf("preparing initdb: %w", err))
	}
	defer remove()
	cmd, err := c.sb.command(filepath.Join(c.binDir, "initdb"), append([]string{"-D", innerDir + "/data", "--pwfile=" + pwfile}, initdbSettings...)...)
	if err != nil {
		return fault.Env(fmt.Errorf("preparing initdb: %w", err))
	}
	// initdb is the sandbox's init: bwrap then reaps it itself, and its CPU time (and that of
	// the postgres --boot processes it runs) counts in ledgercheck's children's.
	cmd.Args = append(cmd.Args[:1], append([]string{"--as-pid-1"}, cmd.Args[1:]...)...)
	out := newRingLog(16 << 10)
	cmd.Stdout, cmd.Stderr = out, out
	// initdb dies with ledgercheck like the server does: run from a thread that lives until it
	// has exited (the parent-death signal follows the thread that forked the child).
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var perr error
		defer func() {
			if perr != nil {
				fault.Offer(done, perr)
			}
		}()
		defer fault.Recover(&perr)
		if err := startCmd(cmd); err != nil {
			done <- err
			return
		}
		stop := context.AfterFunc(ctx, func() { cmd.Process.Kill() })
		defer stop()
		done <- cmd.Wait()
	}()
	if err := <-done; err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fault.Env(fault.Wrapf(err, "initdb failed in %s: %s", c.dir, bwrapMessage(err, out)))
	}
	return nil
}

// bwrapMessage explains a failed sandboxed command from its output: bubblewrap's own complaint
// when the sandbox could not be set up, else the command's last lines.
func bwrapMessage(err error, out *ringLog) string {
	lines := out.Tail(3)
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "bwrap:") && (strings.Contains(l, "namespace") || strings.Contains(l, "uid map") || strings.Contains(l, "not permitted")):
			return l + " (the sandbox needs unprivileged user namespaces: check `sysctl kernel.unprivileged_userns_clone user.max_user_namespaces`, or allow unshare in your container; or use --dsn)"
		case strings.HasPrefix(l, "bwrap:"):
			return l
		}
	}
	if len(lines) == 0 {
		return err.Error()
	}
	// The cause may come before the last lines (a FATAL error, then a PANIC while aborting).
	for _, l := range out.Tail(20) {
		if strings.Contains(l, "FATAL:") && !slices.Contains(lines, l) {
			lines = append([]string{l}, lines...)
			break
		}
	}
	return strings.Join(lines, " / ")
}

// startSandboxed starts the sandboxed postmaster from a goroutine locked to its OS thread for
// the life of the server: Linux sends the parent-death signal when the thread that forked the
// child exits, so the thread must outlive the server. It records the host PID of the sandbox's
// init, which bwrap reports on an extra pipe, and sets the run's resource limits on that init
// before it starts the server (bwrap waits on a second pipe for that), so that every process of
// the cluster has them from its first instruction.
func (c *cluster) startSandboxed() error {
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer infoR.Close()
	blockR, blockW, err := os.Pipe()
	if err != nil {
		infoW.Close()
		return err
	}
	defer blockW.Close()
	n := len(c.cmd.ExtraFiles) + 3 // the first extra file is fd 3
	c.cmd.ExtraFiles = append(c.cmd.ExtraFiles, infoW, blockR)
	c.cmd.Args = append(c.cmd.Args[:1], append([]string{"--info-fd", strconv.Itoa(n), "--block-fd", strconv.Itoa(n + 1)}, c.cmd.Args[1:]...)...)
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine, after postgres
		var perr error
		exited := false
		defer func() {
			if perr != nil { // a bug: said once, to whoever waits
				fault.Offer(started, perr)
				if !exited {
					c.waitErr = perr
					close(c.exited)
				}
			}
		}()
		defer fault.Recover(&perr)
		if err := startCmd(c.cmd); err != nil {
			started <- err
			exited = true
			close(c.exited)
			return
		}
		started <- nil
		c.waitErr = c.cmd.Wait()
		exited = true
		close(c.exited)
	}()
	if err := <-started; err != nil {
		return err
	}
	var info struct {
		ChildPID int `json:"child-pid"`
	}
	if err := json.NewDecoder(infoR).Decode(&info); err != nil || info.ChildPID <= 0 {
		<-c.exited
		return fmt.Errorf("bubblewrap did not start: %s", bwrapMessage(errors.New("no sandbox"), c.log))
	}
	c.initPID = info.ChildPID
	c.sandboxInit.Store(int64(c.initPID))
	if err := c.limits.applyAs(c.initPID, c.sb.cred); err != nil {
		_ = syscall.Kill(c.initPID, syscall.SIGKILL)
		<-c.exited
		return fmt.Errorf("setting the server's resource limits: %w", err)
	}
	if _, err := blockW.Write([]byte{1}); err != nil {
		return fmt.Errorf("starting the sandbox: %w", err)
	}
	return writeNew(c.dir, sandboxFile, []byte(strconv.Itoa(c.initPID)), 0o644)
}

// adminConfig is the connection configuration of the bootstrap superuser: a privileged session
// (privileged.Config; see Server.admin).
func (c *cluster) adminConfig() *pgx.ConnConfig {
	cfg, _ := pgx.ParseConfig("")
	cfg.Host, cfg.Port, cfg.User, cfg.Password, cfg.Database = c.sb.socketDir(), clusterPort, bootstrapUser, c.adminSecret, "postgres"
	cfg.BuildFrontend = readLimited(c.limits.ReadSize)
	cfg.DialFunc = c.dialSandbox
	return privileged.Config(cfg)
}

func (c *cluster) waitReady(ctx context.Context, mark int64) error {
	deadline := time.Now().Add(30 * time.Second)
	logged := false // the postmaster logged that it is ready
	for {
		// Until the postmaster logs that it is ready, its log is looked at every millisecond
		// and a connection tried once it says so (or after 15 ms, should the line never come);
		// after that, every 15 ms.
		for i := 0; i < 15; i++ {
			if !logged && c.log.containsSince(mark, readyLine) {
				logged = true
				break
			}
			select {
			case <-c.exited:
				i = 15
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		conn, err := pgx.ConnectConfig(cctx, c.adminConfig())
		cancel()
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "28P01" { // up, but the password is not the one
			return fault.Env(serverErrorf(err, "connecting to the scratch cluster"))
		}
		select {
		case <-c.exited:
			return fault.Env(fmt.Errorf("postgres exited during startup: %s", c.lastLog()))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if time.Now().After(deadline) {
			return fault.Env(fmt.Errorf("postgres did not accept connections within 30s: %s", c.lastLog()))
		}
	}
}

// readyLine is what the postmaster logs once it accepts connections (lc_messages is C).
const readyLine = "database system is ready to accept connections"

// lastLog returns the server's last log lines, for messages about a failed server.
func (c *cluster) lastLog() string {
	lines := c.log.Tail(4)
	if len(lines) == 0 {
		return "(the server logged nothing)"
	}
	// A crash's cause, a PANIC, is often followed by more than four lines (its statement, the
	// postmaster's reports of the restart): it goes first.
	for _, l := range c.log.Tail(20) {
		if strings.Contains(l, "PANIC:") && !slices.Contains(lines, l) {
			lines = append([]string{l}, lines...)
			break
		}
	}
	return "server log: " + strings.Join(lines, " / ")
}

// Dead reports whether the postmaster has exited (it was killed, or it crashed).
func (c *cluster) dead() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// stop ends every process of the cluster and removes its directory. Killing the sandbox's init
// makes the kernel kill every process of its PID namespace; bwrap returns once all are gone,
// so nothing can write into the directory while it is removed. Nothing of the cluster is kept,
// so there is no need for a clean shutdown.
func (c *cluster) stop() error {
	var errs []error
	if c.cmd != nil && c.cmd.Process != nil {
		// An immediate shutdown (SIGQUIT to the postmaster) ends the backends, and the
		// postmaster, the sandbox's init and bwrap each reap their children: the server's CPU
		// time then counts in ledgercheck's children's (getrusage), as a run's cost should. A
		// SIGKILL of the sandbox's init follows if the server has not ended within a second,
		// and of bwrap if that does not end it.
		c.cpu += treeCPU(c.initPID)
		if pm := c.postmaster(c.initPID); pm > 0 {
			_ = syscall.Kill(pm, syscall.SIGQUIT)
		}
		wait := 0 * time.Second
		if c.initPID > 0 {
			wait = time.Second
		}
		select {
		case <-c.exited:
		case <-time.After(wait):
			if c.initPID > 0 {
				_ = syscall.Kill(c.initPID, syscall.SIGKILL)
			}
			select {
			case <-c.exited:
			case <-time.After(time.Second):
				_ = c.cmd.Process.Signal(syscall.SIGKILL)
			}
			select {
			case <-c.exited:
			case <-time.After(10 * time.Second):
				errs = append(errs, fmt.Errorf("the scratch cluster's sandbox (pid %d) did not stop", c.cmd.Process.Pid))
			}
		}
		if c.initPID > 0 && !waitGone(c.initPID, 10*time.Second) {
			errs = append(errs, fmt.Errorf("the scratch cluster's processes (sandbox pid %d) did not stop", c.initPID))
		}
	}
	if err := removeCluster(c.dir); err != nil {
		errs = append(errs, fmt.Errorf("removing %s: %w", c.dir, err))
	}
	return errors.Join(errs...)
}

// waitGone waits up to d for process pid to be gone (or a zombie nobody waits for).
func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// newSecret returns a random password for a cluster role: 32 hex digits.
func newSecret() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}

func randomUint32() uint32 {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return binary.LittleEndian.Uint32(b[:])
}

// BinMajor returns the major version of the PostgreSQL server in binDir (15, 17, ...).
func BinMajor(binDir string) (int, error) {
	version, err := BinVersion(binDir)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.SplitN(version, ".", 2)[0])
}

// BinVersion returns the version of the PostgreSQL server in binDir ("15.20"), as its
// `postgres --version` prints it.
func BinVersion(binDir string) (string, error) {
	out, err := binVersion(binDir)
	if err != nil {
		return "", err
	}
	// "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"
	f := strings.Fields(out)
	if len(f) >= 3 {
		if _, err := strconv.Atoi(strings.SplitN(f[2], ".", 2)[0]); err == nil {
			return f[2], nil
		}
	}
	return "", fault.Env(fmt.Errorf("cannot read the PostgreSQL version from %q", out))
}

// binVersions remembers `postgres --version` of each binaries directory for the process.
var binVersions sync.Map

// binVersion returns the output of `postgres --version` in binDir.
func binVersion(binDir string) (string, error) {
	if v, ok := binVersions.Load(binDir); ok {
		return v.(string), nil
	}
	out, err := exec.Command(filepath.Join(binDir, "postgres"), "--version").Output()
	if err != nil {
		return "", fault.Env(fmt.Errorf("running %s --version: %w", filepath.Join(binDir, "postgres"), err))
	}
	v := strings.TrimSpace(string(out))
	binVersions.Store(binDir, v)
	return v, nil
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
// a run killed with SIGKILL leaves (its sandbox, and every process in it, died with it).
// Directories of live runs, anything without an owner file, and anything that is not a directory
// of this user's (a link, another user's) are left alone; nothing in one is followed out of it.
func sweepStale(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, dirPrefix+"*"))
	for _, dir := range dirs {
		root, err := openClusterDir(dir)
		if err != nil {
			continue
		}
		pid, sb := readPIDIn(root, ownerFile), readPIDIn(root, sandboxFile)
		root.Close()
		if pid <= 0 || processAlive(pid) {
			continue
		}
		if sb > 0 && processAlive(sb) {
			continue // the sandbox outlived its owner; never remove a running server's files
		}
		_ = removeCluster(dir)
	}
}

// SandboxPID returns the host PID of the sandbox that runs the embedded cluster in dir
// ([Server.Dir]), or 0 when there is none. Every process of the cluster (the postmaster, its
// backends, anything they started) lives in that sandbox's PID namespace and is gone when it is.
func SandboxPID(dir string) int {
	root, err := openClusterDir(dir)
	if err != nil {
		return 0
	}
	defer root.Close()
	return readPIDIn(root, sandboxFile)
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A zombie has exited; only its parent's wait is missing.
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}
