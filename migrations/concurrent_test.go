package migrations_test

import (
	"context"
	"sync"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// TestPortInstallsConcurrently: roles and memberships are cluster-wide, and the port creates
// ledger_agent and makes service_role a member. Four installs into four databases of one fresh
// cluster at once must all succeed. The losers of the races used to fail with `role
// "ledger_agent" does not exist` at their first GRANT, or with a duplicate key in
// pg_auth_members at GRANT ledger_agent TO service_role. Each round needs a cluster where neither
// exists yet.
func TestPortInstallsConcurrently(t *testing.T) {
	scratchtest.Server(t) // skip or fail like the others when Postgres is unavailable
	src := readFile(t, port.file)
	ctx := context.Background()
	for round := 0; round < 3; round++ {
		s, err := scratch.Start(ctx, scratch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, err := s.NewDatabase(ctx, port.dim)
				if err == nil {
					err = sqlscript.ExecFile(ctx, db, port.file, src)
				}
				if err != nil {
					t.Errorf("round %d, install %d: %v", round, i, err)
				}
			}()
		}
		wg.Wait()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
