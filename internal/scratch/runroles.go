package scratch

import (
	"context"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Which roles a --dsn run made (issue 36): those tied to it by who created them, never those
// that merely appeared while it ran (another client may create roles on a shared server at any
// time, and dropping one is data loss).
//
// A role a CREATEROLE role creates is administered by its creator: PostgreSQL 16 records an
// ADMIN OPTION membership of the creator in the new role granted by the bootstrap superuser, and
// the guard gives 15 the same; the creator cannot revoke it (16 and the guard both refuse). So
// the run's roles are its own (the install role, the reader, the API roles it created) and,
// transitively, every role one of them created ([createdClosure]). The one way to cut that tie
// is to drop the creator (a role the migration made, made a maker, then dropped), which takes
// the membership with it; so the run reads the closure after every statement of user SQL
// ([Server.noteRunRoles]) and keeps what it saw. A role created and cut loose within one
// statement is left on the server and named in the log, never guessed.

// bootstrapSuperuser is the oid of the role initdb creates, the grantor PostgreSQL 16 (and the
// guard on 15) records for a creator's ADMIN OPTION on the role it created.
const bootstrapSuperuser = 10

// runRoles is what a --dsn run has seen of its roles.
type runRoles struct {
	mu   sync.Mutex
	conn *pgx.Conn // a privileged session of its own, opened on first use
	seen map[uint32]string
}

// createdClosure returns the roles seeds created, transitively, with seeds themselves, read on
// conn (a superuser session).
func createdClosure(ctx context.Context, conn *pgx.Conn, seeds []uint32) (map[uint32]string, error) {
	rows, err := conn.Query(ctx, `WITH RECURSIVE made(oid) AS (
			SELECT r FROM pg_catalog.unnest($1::pg_catalog.oid[]) r
			UNION
			SELECT m.roleid FROM pg_catalog.pg_auth_members m JOIN made ON m.member OPERATOR(pg_catalog.=) made.oid
			 WHERE m.admin_option AND m.grantor OPERATOR(pg_catalog.=) $2::pg_catalog.oid
		)
		SELECT a.oid, a.rolname::pg_catalog.text FROM made JOIN pg_catalog.pg_authid a ON a.oid OPERATOR(pg_catalog.=) made.oid`,
		seeds, uint32(bootstrapSuperuser))
	if err != nil {
		return nil, err
	}
	out := map[uint32]string{}
	var oid uint32
	var name string
	_, err = pgx.ForEachRow(rows, []any{&oid, &name}, func() error {
		out[oid] = name
		return nil
	})
	return out, err
}

// noteRunRoles adds to what the run has seen the roles its own roles created, transitively. It
// is called after every statement of user SQL on a --dsn server; a failure to read is left to
// the end of the run, which reads again.
func (s *Server) noteRunRoles(ctx context.Context) {
	if s.cl != nil || s.before == nil {
		return
	}
	s.rr.mu.Lock()
	defer s.rr.mu.Unlock()
	if s.rr.conn == nil || s.rr.conn.IsClosed() {
		cfg := s.admin.Copy() // a privileged session: search_path pg_catalog, role none
		cfg.RuntimeParams["application_name"] = "ledgercheck (roles)"
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return
		}
		s.rr.conn = conn
	}
	s.noteOn(ctx, s.rr.conn) //nolint:errcheck // read again at the end of the run
}

// noteOn reads the closure on conn into what the run has seen (rr.mu held by the caller, or the
// run ending).
func (s *Server) noteOn(ctx context.Context, conn *pgx.Conn) error {
	seeds := make([]uint32, 0, len(s.rr.seen)+4)
	for oid := range s.rr.seen {
		seeds = append(seeds, oid)
	}
	rows, err := conn.Query(ctx, `SELECT oid FROM pg_catalog.pg_authid WHERE rolname::pg_catalog.text OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[])`,
		slices.Concat([]string{s.installRole, s.readerRole, s.observerRole}, s.apiCreated, s.loginNames()))
	if err != nil {
		return err
	}
	own, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
	if err != nil {
		return err
	}
	made, err := createdClosure(ctx, conn, append(seeds, own...))
	if err != nil {
		return err
	}
	if s.rr.seen == nil {
		s.rr.seen = map[uint32]string{}
	}
	for oid, name := range made {
		if !s.before.roles[oid] {
			s.rr.seen[oid] = name
		}
	}
	return nil
}

// closeRunRoles reads the closure a last time on conn and closes the run's own session.
func (s *Server) closeRunRoles(ctx context.Context, conn *pgx.Conn) (map[uint32]string, error) {
	s.rr.mu.Lock()
	defer s.rr.mu.Unlock()
	if s.rr.conn != nil {
		s.rr.conn.Close(context.WithoutCancel(ctx))
		s.rr.conn = nil
	}
	if err := s.noteOn(ctx, conn); err != nil {
		return nil, err
	}
	return s.rr.seen, nil
}
