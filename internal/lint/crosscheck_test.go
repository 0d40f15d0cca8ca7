package lint

import (
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

func TestCrossCheck(t *testing.T) {
	const src = "CREATE OR REPLACE FUNCTION public.f() RETURNS void LANGUAGE sql AS 'SELECT 1';\n" +
		"SELECT 1, public.f();\n" +
		"GRANT SELECT ON public.agent_memories TO service_role;\n"
	f, err := pgsql.Parse("m.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change CatalogChange
		want   string // position of the finding, "" for none
	}{
		{"a grant the file makes is declared", CatalogChange{Target: "table public.agent_memories", Verb: pgsql.VerbGrant}, ""},
		{"an alter of the same table is not", CatalogChange{Target: "table public.agent_memories", Verb: pgsql.VerbAlter, Detail: "column x added"}, "m.sql:2:11"},
		{"a column on thoughts points at the call of the file's function", CatalogChange{Target: "table public.thoughts", Verb: pgsql.VerbAlter}, "m.sql:2:11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := CrossCheck(f, shippedConfig(t), []CatalogChange{tc.change})
			switch {
			case tc.want == "" && len(fs) != 0:
				t.Errorf("got %v, want no finding", fs)
			case tc.want != "" && (len(fs) != 1 || fs[0].Pos.String() != tc.want || fs[0].Rule != "undeclared-change"):
				t.Errorf("got %v, want one undeclared-change at %s", fs, tc.want)
			}
		})
	}
	cfg := shippedConfig(t)
	cfg.Severity = map[string]string{"undeclared-change": "off"}
	if fs := CrossCheck(f, cfg, []CatalogChange{{Target: "table public.thoughts", Verb: pgsql.VerbAlter}}); len(fs) != 0 {
		t.Errorf("severity off still reports %v", fs)
	}
}
