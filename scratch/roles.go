package scratch

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Roles returns the names of the server's roles (PostgreSQL's own pg_* roles aside), sorted.
// Roles are cluster-wide: a migration that creates one changes every database of the server.
func (s *Server) Roles(ctx context.Context) ([]string, error) {
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return nil, fmt.Errorf("connecting to list roles: %s", serverMessage(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, `SELECT rolname FROM pg_catalog.pg_roles WHERE rolname !~ '^pg_' ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("listing roles: %s", serverMessage(err))
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("listing roles: %s", serverMessage(err))
	}
	return names, nil
}

// DropRoles drops the named roles, which a run created (compare [Server.Roles] before and
// after), so that the next run on the same server starts from the same roles. The databases
// where the roles hold privileges must be dropped first. Memberships in the dropped roles go
// with them.
func (s *Server) DropRoles(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return fmt.Errorf("connecting to drop roles: %s", serverMessage(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, n := range names {
		if _, err := conn.Exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{n}.Sanitize()); err != nil {
			return fmt.Errorf("dropping role %s that the run created: %s", n, serverMessage(err))
		}
	}
	return nil
}
