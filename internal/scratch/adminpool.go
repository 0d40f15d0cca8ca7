package scratch

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"
)

// adminIdleMax is how many idle sessions of the superuser on the server's own database a run
// keeps: as many as the statements that run side by side on them (two variants' databases
// created or dropped at once, a login role).
const adminIdleMax = 2

// adminSessions are the superuser's idle sessions on the server's own database (s.admin), kept
// for the run's statements that need no scratch database of their own: CREATE DATABASE, DROP
// DATABASE, the login roles. A session costs about 4 ms of CPU to open, client and server, and a
// warm check opened ten such for as many statements. They run only ledgercheck's own statements
// (never a name the migration could define: docs/architecture.md, "Privileged sessions"), each
// statement whole in its own transaction, so one leaves nothing that the next one would see.
type adminSessions struct {
	mu     sync.Mutex
	idle   []*pgx.Conn
	closed bool
}

// adminSession returns an idle superuser session of the server, or a new one, and the function
// that gives it back.
func (s *Server) adminSession(ctx context.Context) (*pgx.Conn, func(), error) {
	s.ap.mu.Lock()
	for len(s.ap.idle) > 0 {
		conn := s.ap.idle[len(s.ap.idle)-1]
		s.ap.idle = s.ap.idle[:len(s.ap.idle)-1]
		if !conn.IsClosed() {
			s.ap.mu.Unlock()
			return conn, func() { s.giveBack(conn) }, nil
		}
	}
	s.ap.mu.Unlock()
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return nil, nil, err
	}
	return conn, func() { s.giveBack(conn) }, nil
}

// giveBack keeps conn for the next statement when it is idle outside a transaction, and there is
// room; else it closes it (a statement that failed in a transaction, a cancelled one, the run
// ending).
func (s *Server) giveBack(conn *pgx.Conn) {
	if !conn.IsClosed() && conn.PgConn().TxStatus() == 'I' {
		s.ap.mu.Lock()
		if !s.ap.closed && len(s.ap.idle) < adminIdleMax {
			s.ap.idle = append(s.ap.idle, conn)
			s.ap.mu.Unlock()
			return
		}
		s.ap.mu.Unlock()
	}
	conn.Close(context.Background())
}

// closeKept closes the sessions the run keeps idle (the superuser's here, the sentinels of
// login.go): before the cluster stops to be cached, and, final, as the run ends, after which
// none is kept.
func (s *Server) closeKept(final bool) {
	s.ap.mu.Lock()
	idle := s.ap.idle
	s.ap.idle, s.ap.closed = nil, s.ap.closed || final
	s.ap.mu.Unlock()
	for _, conn := range idle {
		conn.Close(context.Background())
	}
	s.sn.mu.Lock()
	s.sn.closed = s.sn.closed || final
	s.sn.mu.Unlock()
	s.closeSentinels()
}
