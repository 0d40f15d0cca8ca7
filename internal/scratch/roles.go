package scratch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// Roles are cluster-wide: a role one install creates exists for every other database of the
// server. The gate gives the installs of files that create or name roles of their own the
// server's roles by turns (internal/gate/roles.go, [Server.TakeRoles]); when a turn ends, the
// roles user SQL created during it step aside: they are renamed to names of the run's own,
// keeping every grant, membership and ownership (those follow the role's OID), so that the next
// turn creates its roles from the environment's alone, and its CREATE ROLE finds no role of
// that name. The renamed roles are the run's, dropped with it ([Server.Close], Cleanup).

// EnvironmentRoles are the roles every scratch database starts with that a migration may name:
// the Supabase roles (env/00_roles.sql), and the install role and the superuser under the names
// user SQL knows them by on Supabase.
func EnvironmentRoles() []string {
	return append(slices.Clone(apiRoles), "postgres", "supabase_admin")
}

// Parked is a role that stepped aside: its name, and the name it has meanwhile.
type Parked struct{ Name, As string }

// roleTurns holds a token while an install has the server's roles to itself.
type roleTurns struct {
	once sync.Once
	ch   chan struct{}
}

// RoleTurn is an install's turn with the server's roles (see above): it starts from the roles
// that exist when it is taken, and keeps a superuser session of its own until it ends.
type RoleTurn struct {
	s      *Server
	conn   *pgx.Conn
	before []string // the roles' names when it started, sorted
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
	t := &RoleTurn{s: s}
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err == nil {
		t.conn = conn
		t.before, err = t.names(ctx, `SELECT rolname::pg_catalog.text FROM pg_catalog.pg_roles ORDER BY 1`)
	}
	if err != nil {
		if t.conn != nil {
			t.conn.Close(context.WithoutCancel(ctx))
		}
		<-s.roles.ch
		return nil, fault.Env(serverErrorf(err, "taking the server's roles"))
	}
	return t, nil
}

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

// names runs a query of role names on the turn's session.
func (t *RoleTurn) names(ctx context.Context, sql string, args ...any) ([]string, error) {
	rows, err := t.conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// StepAside renames every role user SQL created during the turn (the install role administers
// it, and it was not there when the turn started) that has not stepped aside yet, to a name of
// the run's own, and returns them.
func (t *RoleTurn) StepAside(ctx context.Context) ([]Parked, error) {
	made, err := t.names(ctx, madeQuery, t.s.installRole)
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "listing the roles user SQL created"))
	}
	prefix := NamePrefix + t.s.runID
	var out []Parked
	var sql strings.Builder
	for _, n := range made {
		if _, found := slices.BinarySearch(t.before, n); found || strings.HasPrefix(n, prefix) {
			continue
		}
		t.s.mu.Lock()
		t.s.seq++
		p := Parked{Name: n, As: fmt.Sprintf("%s_role%d", prefix, t.s.seq)}
		t.s.mu.Unlock()
		out = append(out, p)
		sql.WriteString("ALTER ROLE " + ident(p.Name) + " RENAME TO " + ident(p.As) + ";\n")
	}
	return out, t.rename(ctx, sql.String(), "setting the roles user SQL created aside")
}

// StepBack gives roles that stepped aside their names back (none of the names may be taken
// meanwhile: the roles that took them step aside first).
func (t *RoleTurn) StepBack(ctx context.Context, parked []Parked) error {
	var sql strings.Builder
	for _, p := range parked {
		sql.WriteString("ALTER ROLE " + ident(p.As) + " RENAME TO " + ident(p.Name) + ";\n")
	}
	return t.rename(ctx, sql.String(), "giving the roles user SQL created their names back")
}

// rename runs sql, ALTER ROLE statements, on the turn's session, in one transaction.
func (t *RoleTurn) rename(ctx context.Context, sql, what string) error {
	if sql == "" {
		return nil
	}
	err := pgx.BeginFunc(ctx, t.conn, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, sql)
		return err
	})
	if err != nil {
		return fault.Env(serverErrorf(err, "%s", what))
	}
	return nil
}

// Done ends the turn (once; a nil turn does nothing): the roles created during it step aside for
// good, and the next install may take the server's roles.
func (t *RoleTurn) Done(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var err error
	t.once.Do(func() {
		ctx := context.WithoutCancel(ctx)
		_, err = t.StepAside(ctx)
		t.conn.Close(ctx)
		<-t.s.roles.ch
	})
	return err
}
