package scratch

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// StartUnguarded starts a server like [Start], but a PostgreSQL 15 embedded cluster without the
// role guard: the tests of the other defence layers grant the install role what the guard would
// refuse, to show that each layer holds on its own.
func StartUnguarded(ctx context.Context, opts Options) (*Server, error) {
	opts.noGuard = true
	return Start(ctx, opts)
}

// WithoutWarden runs f with nothing of the run held (warden.go), then holds it again: for the
// tests that prove another layer holds on its own.
func (s *Server) WithoutWarden(ctx context.Context, f func()) error {
	s.unhold()
	f()
	return s.hold(ctx)
}

// AdminConfig returns the superuser's connection configuration (tests only).
func (s *Server) AdminConfig() *pgx.ConnConfig { return s.admin.Copy() }

// Abandon ends a server-mode run the way SIGKILL would: its sessions end (the anchor's and the
// warden's, whose transaction is rolled back) and nothing is dropped.
func (s *Server) Abandon() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.anchor.Close(context.Background())
	s.closeKept(true)
	s.w.session.Lock()
	if s.w.conn != nil {
		s.w.conn.Close(context.Background())
		s.w.conn = nil
	}
	s.w.session.Unlock()
}

// LogBytes returns how many bytes of the embedded server's log are kept in memory.
func (s *Server) LogBytes() int {
	s.cl.log.mu.Lock()
	defer s.cl.log.mu.Unlock()
	return len(s.cl.log.buf)
}

// SetVersionBinDirs makes major's binaries be looked for in dirs until the test ends.
func SetVersionBinDirs(t interface{ Cleanup(func()) }, major int, dirs ...string) {
	old := versionBinDirs[major]
	versionBinDirs[major] = dirs
	t.Cleanup(func() { versionBinDirs[major] = old })
}

// APIRoles are the Supabase roles a run creates on a --dsn server where they are missing.
var APIRoles = apiRoles

// LogTail returns the embedded server's last n log lines (tests only).
func (s *Server) LogTail(n int) []string { return s.cl.log.Tail(n) }

// SweepStale removes what killed runs left in tmp (see sweepStale).
func SweepStale(tmp string) { sweepStale(tmp) }

// DirUsage returns the bytes the directory dir takes, as the size watchdog measures it.
func DirUsage(dir string) int64 {
	n, _ := usageOf(dir)
	return n
}

// SandboxProcesses returns the host PIDs of the processes in the embedded cluster's sandbox
// (its PID namespace): the sandbox's init, the postmaster, its backends.
func (s *Server) SandboxProcesses() []int {
	init := s.cl.initPID
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", init))
	if err != nil {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err == nil && l == ns {
			pids = append(pids, pid)
		}
	}
	return pids
}

// ScramVerifier is scramVerifier, for the test that logs in against it.
var ScramVerifier = scramVerifier

// ConfigAs returns the connection configuration of d's database for user and password (tests
// only).
func (d *Database) ConfigAs(user, password string) *pgx.ConnConfig {
	cfg := d.srv.admin.Copy()
	cfg.Database, cfg.User, cfg.Password = d.Name, user, password
	return cfg
}

// ReaderRole returns the name of the role Database.ConnectReader logs in as (tests only).
func (d *Database) ReaderRole() string { return d.srv.readerRole }

// AdminSession is [Server.adminSession] (adminpool.go), for its tests.
func (s *Server) AdminSession(ctx context.Context) (*pgx.Conn, func(), error) {
	return s.adminSession(ctx)
}
