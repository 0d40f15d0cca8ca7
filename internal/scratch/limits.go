package scratch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// Bounded resources. A run's user SQL may try to exhaust the host: fill the embedded cluster's
// directory (host RAM when it is in /dev/shm), allocate without end in the server, or make the
// catalog, or a row, so large that ledgercheck's own reading of it takes the memory. Each has a
// cap, with a default a CI machine can live with, and hitting one is a finding at the statement
// that was running (the rule resource-limit), not the host's trouble:
//
//   - ScratchSize bounds the embedded cluster's directory: a watchdog measures it (following no
//     link, see hostfs.go) and stops the statement of user SQL that runs when it is over, and
//     kills the whole sandbox if it keeps growing to half as much again (a program started by
//     the server that writes on its own); each server process may write no file larger than it
//     (RLIMIT_FSIZE: the server ignores SIGXFSZ, so the write fails with "File too large"), and
//     temp_file_limit is set to half of it at server start (user SQL that is not a superuser
//     cannot raise it), so that a spilling sort or hash is stopped by the server itself, with
//     the server's own words, before the directory is full.
//   - ServerMemory bounds the address space of each process of the embedded server
//     (RLIMIT_AS, set on the sandbox's init before the server starts and inherited): an
//     allocation past it fails as the server's "out of memory" error. work_mem and the like are
//     settings user SQL may change, so they are not relied on.
//   - ReadSize bounds any one message ledgercheck reads from the server, in both modes: a
//     catalog query's result (one JSON document per kind of object, every function body or view
//     definition of the database in one), a row of a table digest, a row a statement of user
//     SQL returns. A larger one ends the session before it is read into memory.

// Limits are the caps on a run's resources (0: the default).
type Limits struct {
	// ScratchSize is the most the embedded cluster's directory may hold, in bytes (default
	// [DefaultScratchSize]).
	ScratchSize int64
	// ServerMemory is the address space each process of the embedded server may have, in bytes
	// (default [DefaultServerMemory]).
	ServerMemory int64
	// ReadSize is the largest message ledgercheck reads from the server, in bytes (default
	// [DefaultReadSize]).
	ReadSize int64
}

// The default limits: a cluster with the environment and two templates takes about 75 MiB and
// a server process about 250 MiB of address space; the shipped set's largest catalog result is
// under 1 MiB.
const (
	DefaultScratchSize  = 1 << 30
	DefaultServerMemory = 1 << 30
	DefaultReadSize     = 64 << 20
)

// withDefaults returns l with every zero limit set to its default.
func (l Limits) withDefaults() Limits {
	if l.ScratchSize == 0 {
		l.ScratchSize = DefaultScratchSize
	}
	if l.ServerMemory == 0 {
		l.ServerMemory = DefaultServerMemory
	}
	if l.ReadSize == 0 {
		l.ReadSize = DefaultReadSize
	}
	return l
}

// Limit names, as findings and messages say them (the configuration key is limits.<name>).
const (
	LimitScratchSize  = "scratch_size"
	LimitServerMemory = "server_memory"
	LimitReadSize     = "read_size"
)

// applyAs sets the limits on process pid, which runs with the credential cred (nil: this
// process's). Setting another user's limits takes CAP_SYS_RESOURCE, which root in a container
// often lacks; a process may set those of its own user's processes. So for another user the
// call is made from an OS thread of its own that first takes on that user's ids (Linux keeps
// credentials per thread) and is discarded afterwards.
func (l Limits) applyAs(pid int, cred *syscall.Credential) error {
	if cred == nil {
		return l.apply(pid)
	}
	done := make(chan error, 1)
	go func() {
		// Never unlocked: the thread, with the run's ids, ends with the goroutine.
		runtime.LockOSThread()
		var perr error
		defer func() {
			if perr != nil {
				fault.Offer(done, perr)
			}
		}()
		defer fault.Recover(&perr)
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESGID, uintptr(cred.Gid), uintptr(cred.Gid), uintptr(cred.Gid)); e != 0 {
			done <- fmt.Errorf("taking the sandbox's group id: %w", e)
			return
		}
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, uintptr(cred.Uid), uintptr(cred.Uid), uintptr(cred.Uid)); e != 0 {
			done <- fmt.Errorf("taking the sandbox's user id: %w", e)
			return
		}
		done <- l.apply(pid)
	}()
	return <-done
}

// apply sets the limits on process pid (the sandbox's init, before it starts anything): its
// children inherit them. No core files either: a crash's core would fill the directory.
func (l Limits) apply(pid int) error {
	set := func(resource int, v int64) error {
		if v < 0 {
			return nil
		}
		rl := syscall.Rlimit{Cur: uint64(v), Max: uint64(v)}
		_, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(resource), uintptr(unsafe.Pointer(&rl)), 0, 0, 0)
		if errno != 0 {
			return errno
		}
		return nil
	}
	return errors.Join(set(syscall.RLIMIT_FSIZE, l.ScratchSize), set(syscall.RLIMIT_AS, l.ServerMemory), set(syscall.RLIMIT_CORE, 0))
}

// The size watchdog looks at the file system holding the directory every watchTick and walks
// the directory when the file system grew by as much as the directory had left below its
// limit since the last walk, and at least every watchWalk: another run's removal on the same
// file system hides growth for that long (in a run of the whole test suite, where clusters
// come and go beside each other, a bulk insert wrote about 100 MB past the limit within the 2 s
// this was). A walk of a cluster with two templates (about 3,000 files) takes a few
// milliseconds.
const (
	watchTick = 100 * time.Millisecond
	watchWalk = 500 * time.Millisecond
)

// watchSize measures the cluster's directory until exited is closed and tells c.onSize its size
// each time; when it is half as much again as c.limits.ScratchSize, it kills the sandbox (init)
// as well: something in it writes on its own, past a stopped statement.
func (c *cluster) watchSize(exited <-chan struct{}, init int) {
	limit := c.limits.ScratchSize
	var size, fsUsed int64
	var walked time.Time
	tick := time.NewTicker(watchTick)
	defer tick.Stop()
	for {
		var fs syscall.Statfs_t
		used := int64(-1)
		if syscall.Statfs(c.dir, &fs) == nil {
			used = int64(fs.Blocks-fs.Bfree) * fs.Bsize
		}
		// Over the limit, a walk when the file system still grows (1 MiB), to see whether to
		// kill the sandbox.
		if used < 0 || used-fsUsed >= max(limit-size, 1<<20) || time.Since(walked) >= watchWalk {
			n, err := usageOf(c.dir)
			if err != nil {
				return // the directory is gone
			}
			size, fsUsed, walked = n, used, time.Now()
			c.onSize(size)
			if size > limit+limit/2 {
				_ = syscall.Kill(init, syscall.SIGKILL)
			}
		}
		select {
		case <-exited:
			return
		case <-tick.C:
		}
	}
}

// LimitError is the cause of a statement of user SQL that a limit of the run stopped.
type LimitError struct {
	// Limit is the limit's name (LimitScratchSize, ...), and Msg says what happened.
	Limit, Msg string
}

func (e *LimitError) Error() string { return e.Msg }

// limitState is the server's side of the limits: the statements of user SQL running now, which
// the watchdog stops when the directory is over its limit, and whether it is.
type limitState struct {
	mu      sync.Mutex
	running map[*context.CancelCauseFunc]bool
	over    atomic.Pointer[LimitError] // the directory is over its limit (nil: it is not)
}

// scratchSize is the embedded cluster's watchdog's report: the directory holds size bytes. Over
// the limit, it stops every statement of user SQL running.
func (s *Server) scratchSize(size int64) {
	if size <= s.limits().ScratchSize {
		s.lim.over.Store(nil)
		return
	}
	le := &LimitError{Limit: LimitScratchSize, Msg: fmt.Sprintf("the scratch cluster's directory grew to %s, past the run's limit of %s (limits.%s, --scratch-size)",
		formatSize(size), formatSize(s.limits().ScratchSize), LimitScratchSize)}
	s.lim.over.Store(le)
	s.lim.mu.Lock()
	defer s.lim.mu.Unlock()
	for cancel := range s.lim.running {
		(*cancel)(le)
	}
}

// limits returns the run's limits, defaults applied.
func (s *Server) limits() Limits { return s.opts.Limits.withDefaults() }

// watchStatements returns ctx, which the size watchdog cancels (with a *LimitError as its
// cause) while the scratch directory is over its limit, and a function that stops watching.
func (s *Server) watchStatements(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	s.lim.mu.Lock()
	if s.lim.running == nil {
		s.lim.running = map[*context.CancelCauseFunc]bool{}
	}
	s.lim.running[&cancel] = true
	s.lim.mu.Unlock()
	if le := s.lim.over.Load(); le != nil {
		// Over at the watchdog's last walk: nothing more runs until it is under again (a
		// database dropped since may have brought it under, and a stopped statement's
		// temporary files go just after its error reaches the client: a moment is given).
		under := false
		for i := 0; i < 5 && !under; i++ {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			size, err := usageOf(s.cl.dir)
			under = err == nil && size <= s.limits().ScratchSize
		}
		if under {
			s.lim.over.CompareAndSwap(le, nil)
		} else {
			cancel(le)
		}
	}
	return ctx, func() {
		s.lim.mu.Lock()
		delete(s.lim.running, &cancel)
		s.lim.mu.Unlock()
		cancel(nil)
	}
}

// stoppedByLimit reports whether ctx ended because a limit of the run stopped its statement
// (the install time limit included).
func stoppedByLimit(ctx context.Context) bool {
	cause := context.Cause(ctx)
	var le *LimitError
	return errors.Is(cause, errInstallTimeout) || errors.As(cause, &le)
}

// limitHit returns the limit the failed statement se hit, or nil: the watchdog stopped it
// (ctx's cause), or the server said so in a way that, given the run's limits, is the limit's
// doing (out of memory under RLIMIT_AS, "File too large" under RLIMIT_FSIZE, temp_file_limit),
// or the statement returned a message larger than ReadSize.
func (s *Server) limitHit(ctx context.Context, se *ScriptError) *LimitError {
	var le *LimitError
	if errors.As(context.Cause(ctx), &le) {
		return le
	}
	l := s.limits()
	var big *pgproto3.ExceededMaxBodyLenErr
	if errors.As(se.Err, &big) {
		return &LimitError{Limit: LimitReadSize, Msg: fmt.Sprintf("the statement returned a message of %s, more than ledgercheck reads (limits.%s, --read-size: %s)",
			formatSize(int64(big.ActualBodyLen)), LimitReadSize, formatSize(l.ReadSize))}
	}
	pe := se.PgError()
	if s.cl == nil || pe != nil && raised(pe) { // a RAISE is the SQL's own failure, whatever its code
		return nil
	}
	if le := s.lim.over.Load(); le != nil && (pe == nil || environmental(pe) || terminated(pe)) {
		return le // the statement ended as the sandbox was killed, or the disk was full
	}
	if pe == nil {
		return nil
	}
	switch {
	case pe.Code == "53200":
		return &LimitError{Limit: LimitServerMemory, Msg: fmt.Sprintf("%s: a server process may have %s of memory (limits.%s, --server-memory)",
			pe.Message, formatSize(l.ServerMemory), LimitServerMemory)}
	case pe.Code == "53400" && strings.Contains(pe.Message, "temp_file_limit"):
		return &LimitError{Limit: LimitScratchSize, Msg: fmt.Sprintf("%s: temporary files may hold %s (limits.%s, --scratch-size)",
			pe.Message, formatSize(l.ScratchSize), LimitScratchSize)}
	case strings.Contains(pe.Message, "File too large"):
		return &LimitError{Limit: LimitScratchSize, Msg: fmt.Sprintf("%s: no file of the scratch cluster may be larger than %s (limits.%s, --scratch-size)",
			pe.Message, formatSize(l.ScratchSize), LimitScratchSize)}
	}
	return nil
}

// asLimit makes se the finding of limit le: its error says what the limit is, with the
// server's own error, if any, as the detail.
func asLimit(se *ScriptError, le *LimitError) *ScriptError {
	detail := ""
	if pe := se.PgError(); pe != nil && !strings.Contains(le.Msg, pe.Message) {
		detail = pe.Message
	}
	se.Limit = le.Limit
	se.Err = &pgconn.PgError{Severity: "ERROR", Code: "53000", Message: le.Msg, Detail: detail}
	return se
}

// readLimited returns a BuildFrontend for connections whose messages may be at most max bytes.
func readLimited(max int64) pgconn.BuildFrontendFunc {
	return func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		f := pgproto3.NewFrontend(r, w)
		f.SetMaxBodyLen(int(min(max, 1<<31-1)))
		return f
	}
}

// formatSize renders n bytes as "64 MiB", "1 GiB", "1.5 GiB", "300 KiB" or "12 bytes".
func formatSize(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift {
			v := float64(n) / float64(int64(1)<<u.shift)
			if v == float64(int64(v)) {
				return fmt.Sprintf("%d %s", int64(v), u.name)
			}
			return fmt.Sprintf("%.1f %s", v, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadLimit returns err, an error of ledgercheck's own reading of the database after sc ran in
// it (a catalog snapshot), as a resource-limit [*ScriptError] at sc's last statement when the
// reading stopped at the read-size limit: the catalog sc left is larger than ledgercheck reads
// (every function body of the database comes in one message, say). Any other err is returned
// unchanged.
func (d *Database) ReadLimit(sc *Script, err error) error {
	var big *pgproto3.ExceededMaxBodyLenErr
	if !errors.As(err, &big) || len(sc.Statements) == 0 {
		return err
	}
	st := sc.Statements[len(sc.Statements)-1]
	le := &LimitError{Limit: LimitReadSize, Msg: fmt.Sprintf("the catalog after %s is larger than ledgercheck reads: a query of it returned %s, more than the run's limit of %s (limits.%s, --read-size)",
		sc.Name, formatSize(int64(big.ActualBodyLen)), formatSize(d.srv.limits().ReadSize), LimitReadSize)}
	return asLimit(&ScriptError{Pos: st.Pos, Stmt: st.Index, Err: err}, le)
}

// ReadSize returns the run's limit on what ledgercheck reads from the server in one message
// (limits.read_size), which also bounds what it keeps of one table digest.
func (d *Database) ReadSize() int64 { return d.srv.limits().ReadSize }
