package migrations_test

import (
	"context"
	"fmt"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"strings"
	"testing"
)

// dataTables are the tables whose rows an install must never lose or change.
var dataTables = []string{
	"thoughts", "agent_memories", "agent_memory_recall_traces", "agent_memory_recall_items",
	"agent_decision_ledger", "agent_decision_edges",
}

// snapshot returns every row of the data tables (and the port's pins), as JSON text, keyed by table.
// search_document and search_content_hash are derived and left out, so a first-cut install (which
// lacks them) compares too.
func (l *ledgerDB) snapshot() map[string]string {
	l.t.Helper()
	tables := append([]string{}, dataTables...)
	if l.v.port {
		tables = append(tables, "agent_decision_pins")
	}
	out := map[string]string{}
	for _, tbl := range tables {
		var s string
		l.queryRow(fmt.Sprintf(`SELECT coalesce(jsonb_agg(to_jsonb(x) - 'search_document' - 'search_content_hash' ORDER BY to_jsonb(x)::text)::text, '[]')
			FROM public.%s AS x`, tbl), nil, &s)
		out[tbl] = s
	}
	return out
}

func (l *ledgerDB) overloads() int {
	l.t.Helper()
	var n int
	l.queryRow(`SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = 'public' AND p.proname = 'match_decision_ledger'`, nil, &n)
	return n
}

func compareSnapshots(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for tbl, b := range before {
		if after[tbl] != b {
			t.Errorf("%s changed rows of %s:\nbefore %s\nafter  %s", what, tbl, b, after[tbl])
		}
	}
}

// Each shipped file, and the fixture, applied twice: both succeed, every row stays as it was, and
// there is one match_decision_ledger.
func TestRerunKeepsEveryRow(t *testing.T) {
	forEach(t, func(t *testing.T, l *ledgerDB) {
		l.apply("../testdata/fixtures/ledger_fixture.sql")
		before := l.snapshot()
		if before["agent_decision_ledger"] == "[]" {
			t.Fatal("precondition: the fixture enrolled nothing")
		}
		l.apply(l.v.file)
		compareSnapshots(t, "a second install", before, l.snapshot())
		l.apply("../testdata/fixtures/ledger_fixture.sql")
		compareSnapshots(t, "a second fixture load", before, l.snapshot())
		if n := l.overloads(); n != 1 {
			t.Errorf("%d match_decision_ledger functions, want 1", n)
		}
		// Recall still works after the rerun.
		if rows := l.match("p_workspace_id => 'ws-alpha'"); len(rows) == 0 {
			t.Errorf("no recall after the rerun")
		}
	})
}

// The prerequisites are re-runnable too, at both dimensions.
func TestPrerequisitesRerun(t *testing.T) {
	forEach(t, func(t *testing.T, l *ledgerDB) {
		l.apply("../testdata/fixtures/ledger_fixture.sql")
		before := l.snapshot()
		for _, s := range scratch.Prerequisites() {
			if err := sqlscript.ExecFile(context.Background(), l.db, s.Name, []byte(s.SQL)); err != nil {
				t.Fatalf("re-applying %s: %v", s.Name, err)
			}
		}
		compareSnapshots(t, "re-applying the prerequisites", before, l.snapshot())
	})
}

// The 1536 artifact over an install of the first cut: every row kept (updated_at included), one
// match_decision_ledger (the revision's), and the backfilled search documents serve recall.
func TestUpgradeFromFirstCut(t *testing.T) {
	l := install(t, firstCut)
	l.apply("../testdata/fixtures/ledger_fixture.sql")
	before := l.snapshot()
	if n := l.overloads(); n != 1 {
		t.Fatalf("precondition: %d overloads on the first cut", n)
	}
	l.v = artifact
	l.apply(artifact.file)
	compareSnapshots(t, "the upgrade", before, l.snapshot())
	if n := l.overloads(); n != 1 {
		t.Errorf("%d match_decision_ledger functions after the upgrade, want 1", n)
	}
	var args string
	l.queryRow(`SELECT pg_get_function_identity_arguments(p.oid) FROM pg_proc p
		WHERE p.proname = 'match_decision_ledger'`, nil, &args)
	if want := "p_dependency_saturation double precision"; !strings.Contains(args, want) || strings.Contains(args, "p_half_life_days") {
		t.Errorf("signature after upgrade: %s", args)
	}
	var missing int
	l.queryRow(`SELECT count(*) FROM public.agent_decision_ledger WHERE search_document IS NULL`, nil, &missing)
	if missing != 0 {
		t.Errorf("%d ledger rows without a search document after the upgrade", missing)
	}
	// Decision 1 of the fixture is the advisory-lock decision for the migration runner.
	r := byID(l.match("p_workspace_id => 'ws-alpha', p_query => 'how do we keep migration runners apart?'"))["00000000-0000-4000-8000-000000000001"]
	if r == nil || r.f("relevance") == 0 || mustSource(r) != "fts" {
		t.Errorf("recall after the upgrade: %v", r)
	}
	// And the upgraded install is itself re-runnable.
	l.apply(artifact.file)
	compareSnapshots(t, "a rerun after the upgrade", before, l.snapshot())
}
