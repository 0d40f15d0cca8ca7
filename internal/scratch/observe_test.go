package scratch_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

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
	inFlights int // statements whose implicit transaction was open when Executed ran
	db        *scratch.Database
}

func (s *seen) Connected(_ context.Context, pid uint32) { s.mu.Lock(); s.pid = pid; s.mu.Unlock() }

// Executed checks, on a session of its own, that the observed session is still in the
// statement's transaction: pg_stat_activity has its start until the Sync ends it.
func (s *seen) Executed(ctx context.Context, i int, tag string, _ time.Duration, idle bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.executed = append(s.executed, fmt.Sprintf("%d %s %v", i, tag, idle))
	conn, err := s.db.ConnectAdmin(ctx)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	var open bool
	if err := conn.QueryRow(ctx, "SELECT xact_start IS NOT NULL FROM pg_catalog.pg_stat_activity WHERE pid OPERATOR(pg_catalog.=) $1", int32(s.pid)).Scan(&open); err == nil && open {
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
	const setup = `CREATE TABLE public.obs_parent (id int PRIMARY KEY);
CREATE TABLE public.obs_child (id int PRIMARY KEY,
  parent int REFERENCES public.obs_parent (id) DEFERRABLE INITIALLY DEFERRED);
CREATE INDEX CONCURRENTLY obs_child_parent ON public.obs_child (parent);
DO $$ BEGIN INSERT INTO public.obs_parent VALUES (1); COMMIT; INSERT INTO public.obs_parent VALUES (2); END $$;
`
	for name, tail := range map[string]string{
		"lock-outside-a-block": "LOCK TABLE public.obs_parent IN SHARE MODE;\n",
		"deferred-constraint":  "INSERT INTO public.obs_child VALUES (1, 99);\n",
		"server-position":      "SELECT 1 FROM public.obs_parent WHERE nosuch = 1;\n",
		"no-error":             "BEGIN;\nINSERT INTO public.obs_child VALUES (1, 1);\nCOMMIT;\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, err := sqlscript.Parse(name+".sql", []byte(setup+tail), 1536)
			if err != nil {
				t.Fatal(err)
			}
			var errs [2]error
			var obs *seen
			for i := range errs {
				db := scratchtest.NewDatabase(t, 1536)
				sc := sqlscript.Script(f)
				if i == 1 {
					obs = &seen{db: db}
					sc.Observer = obs
				}
				errs[i] = db.Exec(ctx, sc)
			}
			if fmt.Sprint(errs[0]) != fmt.Sprint(errs[1]) {
				t.Errorf("plain: %v\nobserved: %v", errs[0], errs[1])
			}
			if (errs[0] == nil) != (name == "no-error") {
				t.Errorf("plain: %v", errs[0])
			}
			n := len(f.Stmts)
			if errs[1] != nil {
				n-- // the failing statement is not observed: it completed nothing
				if name == "deferred-constraint" {
					n++ // it completed; its commit failed
				}
			}
			// CREATE INDEX CONCURRENTLY and the DO block commit before they complete: their
			// implicit transactions are new ones, and the other statements' are still open.
			if len(obs.executed) != n || obs.done != 1 || obs.pid == 0 || obs.inFlights < n-2 {
				t.Errorf("observed %v (%d of them in their transaction), done %d times, pid %d; want %d statements", obs.executed, obs.inFlights, obs.done, obs.pid, n)
			}
		})
	}
}
