package scratch

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// Roles are cluster-wide: a role one install creates exists for every other database of the
// server. The gate gives the installs of files that create or name roles of their own the
// server's roles by turns (internal/gate/roles.go); between two turns, the roles the first one
// created step aside ([Server.ParkRoles]): they are renamed to names of the run's own, keeping
// every grant, membership and ownership (those follow the role's OID), so that the next
// install creates its roles from the environment's alone, and its CREATE ROLE finds no role of
// that name. The renamed roles are the run's, dropped with it ([Server.Close], Cleanup).

// EnvironmentRoles are the roles every scratch database starts with that a migration may name:
// the Supabase roles (env/00_roles.sql), and the install role and the superuser under the names
// user SQL knows them by on Supabase.
func EnvironmentRoles() []string {
	return append(slices.Clone(apiRoles), "postgres", "supabase_admin")
}

// RoleNames returns the names of every role of the server but PostgreSQL's own (pg_*), sorted.
func (s *Server) RoleNames(ctx context.Context) ([]string, error) {
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("connecting: %s", serverMessage(err)))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, `SELECT rolname::pg_catalog.text FROM pg_catalog.pg_roles
		WHERE rolname OPERATOR(pg_catalog.!~) '^pg_' ORDER BY 1`)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("listing the server's roles: %s", serverMessage(err)))
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fault.Env(fmt.Errorf("listing the server's roles: %s", serverMessage(err)))
	}
	return names, nil
}

// madeRoles returns the roles user SQL created (madeQuery).
func (s *Server) madeRoles(ctx context.Context) ([]string, error) {
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("connecting: %s", serverMessage(err)))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, madeQuery, s.installRole)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("listing the roles user SQL created: %s", serverMessage(err)))
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fault.Env(fmt.Errorf("listing the roles user SQL created: %s", serverMessage(err)))
	}
	return names, nil
}

// Parked is a role that stepped aside: its name, and the name it has meanwhile.
type Parked struct{ Name, As string }

// madeQuery lists the roles the install role ($1) administers, directly or through roles it
// administers: the roles its user SQL created (CREATEROLE gives the creator ADMIN OPTION on what
// it creates), not another client's.
const madeQuery = `WITH RECURSIVE made(oid) AS (
	SELECT m.roleid FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles i ON i.oid OPERATOR(pg_catalog.=) m.member
	 WHERE i.rolname OPERATOR(pg_catalog.=) $1::pg_catalog.name AND m.admin_option
	UNION
	SELECT m.roleid FROM pg_catalog.pg_auth_members m JOIN made ON m.member OPERATOR(pg_catalog.=) made.oid WHERE m.admin_option
)
SELECT r.rolname::pg_catalog.text FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) ANY (SELECT oid FROM made) ORDER BY 1`

// ParkRoles renames every role user SQL created (the install role administers it) that is not in
// before (a [Server.RoleNames] list) and not one of the run's own to a name of the run's, and
// returns them: the roles created since before, which step aside for another install.
func (s *Server) ParkRoles(ctx context.Context, before []string) ([]Parked, error) {
	now, err := s.madeRoles(ctx)
	if err != nil {
		return nil, err
	}
	var out []Parked
	var sql string
	prefix := NamePrefix + s.runID
	for _, n := range now {
		if _, found := slices.BinarySearch(before, n); found || len(n) >= len(prefix) && n[:len(prefix)] == prefix {
			continue
		}
		s.mu.Lock()
		s.seq++
		p := Parked{Name: n, As: fmt.Sprintf("%s_role%d", prefix, s.seq)}
		s.mu.Unlock()
		out = append(out, p)
		sql += "ALTER ROLE " + ident(p.Name) + " RENAME TO " + ident(p.As) + ";\n"
	}
	return out, s.execRoles(ctx, sql, "setting the roles user SQL created aside")
}

// UnparkRoles gives the roles parked their names back (none of the names may exist meanwhile:
// park what took them first).
func (s *Server) UnparkRoles(ctx context.Context, parked []Parked) error {
	var sql string
	for _, p := range parked {
		sql += "ALTER ROLE " + ident(p.As) + " RENAME TO " + ident(p.Name) + ";\n"
	}
	return s.execRoles(ctx, sql, "giving the roles user SQL created their names back")
}

// execRoles runs sql, ALTER ROLE statements, on a superuser session, in one transaction.
func (s *Server) execRoles(ctx context.Context, sql, what string) error {
	if sql == "" {
		return nil
	}
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return fault.Env(fmt.Errorf("connecting: %s", serverMessage(err)))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, sql)
		return err
	})
	if err != nil {
		return fault.Env(fmt.Errorf("%s: %s", what, serverMessage(err)))
	}
	return nil
}

// roleTurns holds a token while an install has the server's roles to itself.
type roleTurns struct {
	once sync.Once
	ch   chan struct{}
}

// RoleTurn is an install's turn with the server's roles (see above): it starts from the roles
// that exist when it is taken.
type RoleTurn struct {
	s      *Server
	before []string
	once   sync.Once
}

// TakeRoles waits until no other install has the server's roles, and returns the turn; its
// caller ends it with [RoleTurn.Done].
func (s *Server) TakeRoles(ctx context.Context) (*RoleTurn, error) {
	s.roles.once.Do(func() { s.roles.ch = make(chan struct{}, 1) })
	select {
	case s.roles.ch <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	before, err := s.RoleNames(ctx)
	if err != nil {
		<-s.roles.ch
		return nil, err
	}
	return &RoleTurn{s: s, before: before}, nil
}

// StepAside parks the roles created during the turn so far that are not parked yet (see
// [Server.ParkRoles]), and returns them.
func (t *RoleTurn) StepAside(ctx context.Context) ([]Parked, error) {
	return t.s.ParkRoles(ctx, t.before)
}

// StepBack gives roles that stepped aside their names back.
func (t *RoleTurn) StepBack(ctx context.Context, parked []Parked) error {
	return t.s.UnparkRoles(ctx, parked)
}

// Done ends the turn (once; a nil turn does nothing): the roles created during it step aside for
// good, and the next install may take the server's roles.
func (t *RoleTurn) Done(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var err error
	t.once.Do(func() {
		_, err = t.StepAside(context.WithoutCancel(ctx))
		<-t.s.roles.ch
	})
	return err
}
