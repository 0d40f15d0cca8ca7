package gate

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// check traces the upgrade and the reruns, not only the install: a second version that drops
// the first version's trigger on agent_memories locks nothing on a fresh install or a rerun (the
// trigger is not there), and ACCESS EXCLUSIVE when it upgrades the first, which the locks phase
// reports at the DROP TRIGGER, naming the upgrade.
func TestLocksTraceTheUpgradeAndTheReruns(t *testing.T) {
	previous := `CREATE OR REPLACE FUNCTION public.digest_enroll_v1() RETURNS trigger
LANGUAGE plpgsql SET search_path = public AS $fn$ BEGIN RETURN NULL; END; $fn$;
DROP TRIGGER IF EXISTS trg_digest_enroll_v1 ON public.agent_memories;
CREATE TRIGGER trg_digest_enroll_v1 AFTER INSERT ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.digest_enroll_v1();
NOTIFY pgrst, 'reload schema';
`
	file := `SET lock_timeout = '3s';
-- Version 2 enrolls nothing: the first version's trigger goes.
DROP TRIGGER IF EXISTS trg_digest_enroll_v1 ON public.agent_memories;
DROP FUNCTION IF EXISTS public.digest_enroll_v1();
NOTIFY pgrst, 'reload schema';
`
	res, err := Run(context.Background(), Request{
		Artifact: Variant{Name: "artifact", File: "digest.sql", Src: []byte(file), Dim: 1536, Previous: &SQLFile{Name: "digest_v1.sql", Src: []byte(previous)}},
		Steps:    Steps{Rerun: true, Locks: true},
		Lint:     config.DefaultLint(),
		Server:   scratchtest.Server(t),
		Times:    2,
	})
	if err != nil {
		t.Fatal(err)
	}
	var locks []string
	for _, ph := range res.Report.Phases {
		if ph.Name != "locks artifact" {
			continue
		}
		if !strings.Contains(ph.Notes[0], "(install, run 2, upgrade from digest_v1.sql)") {
			t.Errorf("the runs traced: %q", ph.Notes[0])
		}
		for _, f := range ph.Findings {
			locks = append(locks, f.Pos.String()+" "+f.Rule+": "+f.Message)
		}
	}
	want := "digest.sql:3:1 lock-access-exclusive: DROP TRIGGER takes ACCESS EXCLUSIVE on table public.agent_memories, which existed before the file: every read and write of it waits until the transaction ends (0 rows in the scratch database, without a fixture) (upgrade from digest_v1.sql)"
	if len(locks) != 1 || locks[0] != want {
		t.Errorf("the locks phase's findings:\n%s\nwant\n%s", strings.Join(locks, "\n"), want)
	}
}
