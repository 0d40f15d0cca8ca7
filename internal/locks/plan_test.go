package locks

import (
	"slices"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// The plan reads production's transactions and lock_timeout from the file: a COMMIT ends a
// transaction (a BEGIN does not split one), SET LOCAL lasts until it ends, SET until it is reset
// or set to 0, a set_config that names lock_timeout counts, and a function body sets nothing
// until it is called.
func TestPlanReadsTransactionsAndTimeouts(t *testing.T) {
	src := `CREATE TABLE public.plan_a (id int);
BEGIN;
SET LOCAL lock_timeout = '5s';
CREATE INDEX ON public.plan_a (id);
COMMIT;
CREATE INDEX ON public.plan_a (id);
SET lock_timeout = '3s';
CREATE INDEX ON public.plan_a (id);
RESET lock_timeout;
CREATE FUNCTION public.plan_f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN SET lock_timeout = '1s'; END $$;
CREATE INDEX ON public.plan_a (id);
SELECT pg_catalog.set_config('lock_timeout', '2s', false);
SET lock_timeout = 0;
CREATE INDEX ON public.plan_a (id);
`
	f, err := sqlscript.Parse("plan.sql", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	p := planOf(f, sqlscript.Script(f))
	wantTx := []int{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	wantTimeout := []bool{false, false, false, true, true, false, false, true, true, false, false, false, true, false}
	if !slices.Equal(p.tx, wantTx) || !slices.Equal(p.timeout, wantTimeout) {
		t.Errorf("transactions %v, want %v\nlock_timeout set before %v, want %v", p.tx, wantTx, p.timeout, wantTimeout)
	}
}

// Each mode blocks what PostgreSQL's table of conflicting lock modes says, and a stronger mode
// covers a weaker one only where it blocks all it blocks (SHARE and SHARE UPDATE EXCLUSIVE each
// block one mode the other does not).
func TestModes(t *testing.T) {
	for m := AccessShare; m <= AccessExclusive; m++ {
		if ParseMode(m.String()) != m || ParseMode(map[Mode]string{AccessShare: "AccessShareLock", RowShare: "RowShareLock", RowExclusive: "RowExclusiveLock",
			ShareUpdateExclusive: "ShareUpdateExclusiveLock", Share: "ShareLock", ShareRowExclusive: "ShareRowExclusiveLock", Exclusive: "ExclusiveLock",
			AccessExclusive: "AccessExclusiveLock"}[m]) != m {
			t.Errorf("%s does not read back", m)
		}
		if m.Conflicts(AccessShare) != (m == AccessExclusive) || m.BlocksWrites() != (m >= Share) {
			t.Errorf("%s: blocks reads %v, writes %v", m, m.Conflicts(AccessShare), m.BlocksWrites())
		}
		if !AccessExclusive.Covers(m) || !m.Covers(m) {
			t.Errorf("%s is not covered by ACCESS EXCLUSIVE or itself", m)
		}
	}
	if Share.Covers(ShareUpdateExclusive) || ShareUpdateExclusive.Covers(Share) || !ShareRowExclusive.Covers(Share) {
		t.Error("SHARE and SHARE UPDATE EXCLUSIVE cover each other, or SHARE ROW EXCLUSIVE does not cover SHARE")
	}
	if got := strongest([]Mode{RowExclusive, Share, ShareUpdateExclusive, AccessShare}); !slices.Equal(got, []Mode{Share, ShareUpdateExclusive}) {
		t.Errorf("strongest = %v", got)
	}
}
