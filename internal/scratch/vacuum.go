package scratch

import (
	"context"
	"fmt"
	"time"
)

// VACUUM writes its database's frozen transaction id into the database's row of pg_database, in
// place, and waits for the warden's transaction to do it, as ALTER DATABASE would (the server
// tells them apart: only VACUUM holds the frozenid lock meanwhile, warden.go's waitsQuery). It
// changes nothing the run needs, so the warden lets it through, without letting anything else
// through with it:
//  1. no statement of a script starts any more, and the ones running end (a statement that waits
//     for the warden is stopped meanwhile, as ever), at most vacuumDrain;
//  2. the transaction is rolled back, the VACUUM writes its row, and the transaction holds
//     everything again as soon as the VACUUM no longer holds the frozenid lock;
//  3. statements start again.
// What a session outside the scripts (a probe, generated rows) did between 2's two halves is not
// held; a statement still running after vacuumDrain is not either.

// vacuumDrain bounds how long the warden waits for the statements running beside a VACUUM.
const vacuumDrain = 30 * time.Second

// letVacuumThrough lets the VACUUM of v's running statement write its row (see above).
func (s *Server) letVacuumThrough(v *execution) {
	s.w.mu.Lock()
	s.w.paused++
	v.vacuum = true
	deadline := time.Now().Add(vacuumDrain)
	for s.othersBusy(v) && time.Now().Before(deadline) {
		s.w.mu.Unlock()
		time.Sleep(5 * time.Millisecond) // the others' own timers stop what waits for the warden
		s.w.mu.Lock()
	}
	s.w.mu.Unlock()
	defer func() {
		s.w.mu.Lock()
		s.w.paused--
		v.vacuum = false
		s.w.resume.Broadcast()
		s.w.mu.Unlock()
	}()

	s.w.session.Lock()
	defer s.w.session.Unlock()
	if s.w.conn == nil || s.w.conn.IsClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), vacuumDrain)
	defer cancel()
	if _, err := s.w.conn.Exec(ctx, "ROLLBACK"); err != nil {
		s.unholdLocked()
		_ = s.holdLocked(ctx)
		return
	}
	for ctx.Err() == nil {
		var frozen bool
		if err := s.w.conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_catalog.pg_locks f WHERE f.pid OPERATOR(pg_catalog.=) $1::pg_catalog.int4
			AND f.locktype OPERATOR(pg_catalog.=) 'frozenid')`, int32(v.pid)).Scan(&frozen); err != nil || !frozen {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := s.holdAllLocked(ctx); err != nil {
		fmt.Fprintf(s.opts.Log, "scratch: holding the run's role and databases again after a VACUUM: %v\n", err)
	}
}

// othersBusy reports whether a statement of a script other than v's runs, a VACUUM let through
// aside (w.mu held).
func (s *Server) othersBusy(v *execution) bool {
	for e := range s.w.active {
		if e != v && e.busy && !e.vacuum {
			return true
		}
	}
	return false
}
