package crosscheck_test

import (
	"context"
	"github.com/ledgercheck/ledgercheck/internal/config"
	installstep "github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"os"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/crosscheck"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/introspect"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// install installs src over the prerequisites at dim and returns the parsed file and the
// cross-check findings.
func install(t *testing.T, name, src string, dim int) (*introspect.Footprint, []finding.Finding) {
	t.Helper()
	db := scratchtest.NewDatabase(t, dim)
	fp, err := footprint(db, name, src)
	if err != nil {
		t.Fatalf("installing %s: %v", name, err)
	}
	f, err := pgsql.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return fp, crosscheck.Check(f, config.DefaultLint(), fp)
}

// footprint installs src into db with the gate's install step.
func footprint(db *scratch.Database, name, src string) (*introspect.Footprint, error) {
	f, err := sqlscript.Parse(name, []byte(src), db.Dim)
	if err != nil {
		return nil, err
	}
	fp, _, err := installstep.Footprint(context.Background(), db, sqlscript.Script(f), nil, introspect.Options{})
	return fp, err
}

func TestShippedFilesDeclareEveryChange(t *testing.T) {
	for _, tc := range []struct {
		path string
		dim  int
	}{{"../../migrations/decision_ledger.sql", 1536}, {"../../migrations/ports/decision_ledger_1024.sql", 1024}} {
		src, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		fp, fs := install(t, tc.path, string(src), tc.dim)
		for _, f := range fs {
			t.Errorf("%s: unexpected %s", tc.path, f)
		}
		// The enrollment trigger on agent_memories is a change to a prerequisite table, and the
		// cross-check must see it (and find it declared).
		found := false
		for _, c := range crosscheck.Changes(fp) {
			if c.Target == "trigger trg_agent_decision_ledger_enroll on public.agent_memories" && c.Verb == pgsql.VerbCreate {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: the enrollment trigger on agent_memories is not among the changes to pre-existing objects: %v", tc.path, crosscheck.Changes(fp))
		}
	}
}

func TestDynamicColumnOnThoughtsIsCaught(t *testing.T) {
	src := "CREATE TABLE IF NOT EXISTS public.sidecar (id int);\n" +
		"DO $$\nBEGIN\n  EXECUTE format('ALTER TABLE %I ADD COLUMN note text', 'thoughts');\nEND\n$$;\n"
	_, fs := install(t, "dyn.sql", src, 1536)
	if len(fs) != 1 {
		t.Fatalf("got %d findings %v, want one undeclared-change", len(fs), fs)
	}
	f := fs[0]
	if f.Rule != "undeclared-change" || f.Object != "table public.thoughts" || f.Pos.String() != "dyn.sql:4:3" {
		t.Errorf("got %s, want undeclared-change on table public.thoughts at dyn.sql:4:3 (the EXECUTE)", f)
	}
	if !strings.Contains(f.Message, "public.thoughts.note") {
		t.Errorf("message does not name the added column: %s", f.Message)
	}
}

func TestDynamicGrantOnAgentMemoriesIsCaught(t *testing.T) {
	src := "DO $$\nDECLARE r text := 'anon';\nBEGIN\n  EXECUTE 'GRANT SELECT ON public.agent_memories TO ' || r;\nEND\n$$;\n"
	_, fs := install(t, "grant.sql", src, 1024)
	if len(fs) != 1 || fs[0].Object != "table public.agent_memories" || !strings.Contains(fs[0].Message, "grant") {
		t.Fatalf("got %v, want one undeclared grant change on table public.agent_memories", fs)
	}
}

// A change made by a statement the static rules can read is theirs to judge: the cross-check
// does not report it again, whether configuration allows it or not.
func TestVisibleChangesAreNotReportedTwice(t *testing.T) {
	src := `CREATE OR REPLACE FUNCTION public.add_note() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS note text;
END $$;
SELECT public.add_note();
CREATE OR REPLACE FUNCTION public.noop_trigger() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER other AFTER INSERT ON public.agent_memories FOR EACH ROW EXECUTE FUNCTION public.noop_trigger();
`
	fp, fs := install(t, "visible.sql", src, 1536)
	if len(fs) != 0 {
		t.Errorf("cross-check findings %v, want none: the static rules see both changes", fs)
	}
	if len(crosscheck.Changes(fp)) < 2 {
		t.Errorf("changes %v: want the new column on thoughts and the trigger on agent_memories", crosscheck.Changes(fp))
	}
	static := lint.Source("visible.sql", []byte(src), config.DefaultLint(), lint.Options{})
	var rules []string
	for _, f := range static {
		rules = append(rules, f.Rule)
	}
	if got := strings.Join(rules, " "); !strings.Contains(got, "modifies-existing-object") || !strings.Contains(got, "attaches-to-existing-table") {
		t.Errorf("static rules %q: want modifies-existing-object and attaches-to-existing-table", got)
	}
}
