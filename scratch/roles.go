package scratch

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// roles returns the names of the server's roles (PostgreSQL's own pg_* roles aside), sorted.
func (s *Server) roles(ctx context.Context) ([]string, error) {
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

// dropNewRoles drops, on a --dsn server, the roles that did not exist when the server was
// started: roles are cluster-wide, so the migrations a run installs (the port's ledger_agent)
// would otherwise outlive the run's databases. A role that some other database still uses (a
// concurrent run's) cannot be dropped and is left alone.
func (s *Server) dropNewRoles(ctx context.Context) {
	now, err := s.roles(ctx)
	if err != nil {
		return
	}
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, n := range now {
		if !slices.Contains(s.baselineRoles, n) {
			_, _ = conn.Exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{n}.Sanitize())
		}
	}
}
