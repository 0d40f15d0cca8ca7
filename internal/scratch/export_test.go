package scratch

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// StartUnguarded starts a server like [Start], but a PostgreSQL 15 embedded cluster without the
// role guard: the tests of the other defence layers grant the install role what the guard would
// refuse, to show that each layer holds on its own.
func StartUnguarded(ctx context.Context, opts Options) (*Server, error) {
	opts.noGuard = true
	return Start(ctx, opts)
}

// AdminConfig returns the superuser's connection configuration (tests only).
func (s *Server) AdminConfig() *pgx.ConnConfig { return s.admin.Copy() }

// Abandon ends a server-mode run the way SIGKILL would: its sessions end and nothing is dropped.
func (s *Server) Abandon() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.anchor.Close(context.Background())
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
