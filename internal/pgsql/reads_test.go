package pgsql

import (
	"fmt"
	"testing"
)

func TestReadsNamesCalledFunctionsAndRelations(t *testing.T) {
	funcs, rels, err := Reads(`WITH w AS (SELECT 1 AS x)
SELECT count(*), public.match_decision_ledger('ws', p_query => 'q'), lower(s.Name)
FROM w, public.agent_decision_ledger l JOIN Stats s ON true, public.match_decision_ledger('x') m
WHERE l.memory_id IN (SELECT memory_id FROM public.agent_decision_edges)`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(funcs), "[count public.match_decision_ledger lower]"; got != want {
		t.Errorf("funcs = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(rels), "[public.agent_decision_ledger stats public.agent_decision_edges]"; got != want {
		t.Errorf("rels = %s, want %s", got, want)
	}
	if _, _, err := Reads("SELECT FROM FROM"); err == nil {
		t.Error("want an error for SQL that does not parse")
	}
}
