package scratch_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// seen records what an observer was told.
type seen struct {
	mu        sync.Mutex
	pid       uint32
	executed  []string // "i tag idle"
	done      int
	doneIdle  bool
	inFlights int       // statements whose implicit transaction was open when Executed ran
	conn      *pgx.Conn // a superuser session of the database, for Executed's reads
}

func (s *seen) Connected(_ context.Context, pid uint32) { s.mu.Lock(); s.pid = pid; s.mu.Unlock() }

// Executed checks, on a session of its own, that the observed session is still in the
// statement's transaction: pg_stat_activity has its start until the Sync ends it.
func (s *seen) Executed(ctx context.Context, i int, tag string, _ time.Duration, idle bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.executed = append(s.executed, fmt.Sprintf("%d %s %v", i, tag, idle))
	var open bool
	if err := s.conn.QueryRow(ctx, "SELECT xact_start IS NOT NULL FROM pg_catalog.pg_stat_activity WHERE pid OPERATOR(pg_catalog.=) $1", int32(s.pid)).Scan(&open); err == nil && open {
		s.inFlights++
	}
}

func (s *seen) Done(_ context.Context, idle bool) {
	s.mu.Lock()
	s.done++
	s.doneIdle = idle
	s.mu.Unlock()
}

// An observed script runs as psql would run it, statement by statement: the same statements
// fail at the same positions with the same errors (LOCK TABLE outside a transaction block,
// a deferred constraint checked when the statement's transaction commits, an error the server
// places inside the statement), CREATE INDEX CONCURRENTLY and a DO block that commits still run, and the
// observer sees each completed statement while its transaction is still open.
func TestObservedScriptRunsAsPsqlWould(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// One database runs every case plainly, another observed; each case has tables of its own.
	dbs := [2]*scratch.Database{scratchtest.NewDatabase(t, 1536), scratchtest.NewDatabase(t, 1536)}
	conn, err := dbs[1].ConnectAdmin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const setup = `CREATE TABLE public.obs_parent_%[1]s (id int PRIMARY KEY);
CREATE TABLE public.obs_child_%[1]s (id int PRIMARY KEY,
  parent int REFERENCES public.obs_parent_%[1]s (id) DEFERRABLE INITIALLY DEFERRED);
CREATE INDEX CONCURRENTLY obs_child_parent_%[1]s ON public.obs_child_%[1]s (parent);
DO $$ BEGIN INSERT INTO public.obs_parent_%[1]s VALUES (1); COMMIT; INSERT INTO public.obs_parent_%[1]s VALUES (2); END $$;
`
	for i, tc := range []struct{ name, tail string }{
		{"lock_outside_a_block", "LOCK TABLE public.obs_parent_%[1]s IN SHARE MODE;\n"},
		{"deferred_constraint", "INSERT INTO public.obs_child_%[1]s VALUES (1, 99);\n"},
		{"server_position", "SELECT 1 FROM public.obs_parent_%[1]s WHERE nosuch = 1;\n"},
		{"no_error", "BEGIN;\nINSERT INTO public.obs_child_%[1]s VALUES (1, 1);\nCOMMIT;\n"},
	} {
		f, err := sqlscript.Parse(tc.name+".sql", []byte(fmt.Sprintf(setup+tc.tail, tc.name)), 1536)
		if err != nil {
			t.Fatal(err)
		}
		var errs [2]error
		obs := &seen{conn: conn}
		for k, db := range dbs {
			sc := sqlscript.Script(f)
			if k == 1 {
				sc.Observer = obs
			}
			errs[k] = db.Exec(ctx, sc)
		}
		if fmt.Sprint(errs[0]) != fmt.Sprint(errs[1]) {
			t.Errorf("%s: plain: %v\nobserved: %v", tc.name, errs[0], errs[1])
		}
		if (errs[0] == nil) != (i == 3) {
			t.Errorf("%s: plain: %v", tc.name, errs[0])
		}
		n := len(f.Stmts)
		if errs[1] != nil && tc.name != "deferred_constraint" {
			n-- // the failing statement completed nothing; the deferred constraint's commit failed
		}
		// CREATE INDEX CONCURRENTLY and the DO block commit before they complete: their implicit
		// transactions are new ones, and the other statements' are still open.
		if len(obs.executed) != n || obs.done != 1 || obs.pid == 0 || obs.inFlights < n-2 {
			t.Errorf("%s: observed %v (%d of them in their transaction), done %d times, pid %d; want %d statements", tc.name, obs.executed, obs.inFlights, obs.done, obs.pid, n)
		}
	}
}
