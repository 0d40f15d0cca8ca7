package scratch_test

import (
	"context"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// TestRoleTurnsSetTheirRolesAside: a role user SQL creates during a turn steps aside when the
// turn ends (renamed, with its grants), so that the next turn creates it again; a role another
// client creates meanwhile keeps its name.
func TestRoleTurnsSetTheirRolesAside(t *testing.T) {
	srv := scratchtest.Server(t)
	db := scratchtest.NewDatabase(t, 1024)
	ctx := context.Background()
	admin := scratchtest.ConnectAdmin(t, db)
	defer admin.Exec(ctx, "DROP ROLE IF EXISTS lc_other_client")
	var first uint32
	for round := range 2 {
		turn, err := srv.TakeRoles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		scratchtest.Exec(t, db, "role.sql", "CREATE ROLE lc_turn_reader NOLOGIN;\nCREATE TABLE IF NOT EXISTS public.turn_notes (id int);\nGRANT SELECT ON public.turn_notes TO lc_turn_reader;\n")
		if round == 0 {
			if _, err := admin.Exec(ctx, "CREATE ROLE lc_other_client NOLOGIN"); err != nil {
				t.Fatal(err)
			}
			if err := admin.QueryRow(ctx, "SELECT oid FROM pg_roles WHERE rolname = 'lc_turn_reader'").Scan(&first); err != nil {
				t.Fatal(err)
			}
		}
		if err := turn.Done(ctx); err != nil {
			t.Fatal(err)
		}
		var named, other int
		var reads bool
		if err := admin.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_roles WHERE rolname = 'lc_turn_reader')::int,
			(SELECT count(*) FROM pg_roles WHERE rolname = 'lc_other_client')::int,
			has_table_privilege($1::oid, 'public.turn_notes', 'SELECT')`, first).Scan(&named, &other, &reads); err != nil {
			t.Fatal(err)
		}
		if named != 0 || other != 1 || !reads {
			t.Errorf("round %d: %d roles named lc_turn_reader (want 0: set aside), %d lc_other_client (want 1), the first one still reads its table: %v",
				round, named, other, reads)
		}
	}
}
