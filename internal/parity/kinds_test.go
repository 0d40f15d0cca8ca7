package parity_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/parity"
)

// ledgerTotal is an aggregate every variant of TestParitySeesEveryCatalogKind has, so that the
// aggregate case can differ from the artifact in what makes an aggregate (its initial
// condition) rather than in the function's presence, which parity has always seen.
const ledgerTotal = "CREATE AGGREGATE public.ledger_total(integer) (SFUNC = pg_catalog.int4pl, STYPE = integer, INITCOND = '%s');\n"

// TestParitySeesEveryCatalogKind runs one gate over the shipped artifact and one port per
// catalog kind: the shipped port plus one statement of that kind (the aggregate's port changes
// its initial condition). Each must report exactly that difference, an unreviewed one, at the
// port's statement, and fail. The shipped allowlist accepts the shipped pair's differences, so
// anything else in a port's parity phase is a regression. An event trigger needs a superuser,
// which the install role is not (as on Supabase): its port must fail to install at that
// statement; introspect's TestCatalogKindsInFootprint shows that a snapshot sees one.
func TestParitySeesEveryCatalogKind(t *testing.T) {
	artifact := readRepo(t, "migrations/decision_ledger.sql") + fmt.Sprintf(ledgerTotal, "0")
	base := readRepo(t, "migrations/ports/decision_ledger_1024.sql")
	al, err := allowlist.Parse("allowlist.yaml", []byte(readRepo(t, "allowlist.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		// sql is appended to the port; its last statement is the one the difference points at.
		sql          string
		kind, object string
		attr         string // "" for an object only the port has
	}{
		{"rule", "CREATE RULE agent_decision_ledger_keep AS ON DELETE TO public.agent_decision_ledger DO INSTEAD NOTHING;",
			"rule", "agent_decision_ledger_keep on public.agent_decision_ledger", ""},
		{"operator", "CREATE OPERATOR public.=== (LEFTARG = text, RIGHTARG = text, FUNCTION = pg_catalog.texteq);",
			"operator", "public.===(text, text)", ""},
		{"cast", "CREATE CAST (text AS public.agent_decision_pins) WITH INOUT AS ASSIGNMENT;",
			"cast", "(text AS public.agent_decision_pins)", ""},
		{"collation", "CREATE COLLATION public.ledger_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);",
			"collation", "public.ledger_ci", ""},
		{"statistics", "CREATE STATISTICS public.agent_decision_ledger_workspace_project ON workspace_id, project_id FROM public.agent_decision_ledger;",
			"statistics", "public.agent_decision_ledger_workspace_project", ""},
		{"aggregate", "", "function", "public.ledger_total(integer)", "initial_condition"},
		{"text-search", "CREATE TEXT SEARCH CONFIGURATION public.ledger_english (COPY = pg_catalog.english);",
			"text search configuration", "public.ledger_english", ""},
		{"publication", "CREATE PUBLICATION ledger_changes FOR TABLE public.agent_decision_ledger (id, workspace_id);",
			"publication", "ledger_changes", ""},
		{"event-trigger", "CREATE FUNCTION public.ledger_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN END $$;\nCREATE EVENT TRIGGER ledger_ddl ON ddl_command_end EXECUTE FUNCTION public.ledger_ddl();",
			"", "", ""},
	}
	req := shippedRequest(t)
	req.Artifact = gate.Variant{Name: "artifact", File: "artifact.sql", Src: []byte(artifact), Dim: 1536}
	lines := make([]int, len(cases))
	for i, c := range cases {
		src := base
		if c.name == "aggregate" {
			src += fmt.Sprintf(ledgerTotal, "1")
		} else {
			src += fmt.Sprintf(ledgerTotal, "0") + c.sql + "\n"
		}
		lines[i] = strings.Count(src, "\n") // the last line: the statement the case is about
		req.Ports = append(req.Ports, gate.Port{Allowlist: al,
			Variant: gate.Variant{Name: c.name, File: c.name + ".sql", Src: []byte(src), Dim: 1024}})
	}
	res, err := gate.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	phases := map[string][]finding.Finding{}
	for _, p := range res.Report.Phases {
		phases[p.Name] = p.Findings
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.kind == "" { // the event trigger: the install role may not create one
				fs := phases["install "+c.name]
				if len(fs) != 1 || fs[0].Pos.Line != lines[i] || !strings.Contains(fs[0].Message, "permission denied to create event trigger") {
					t.Fatalf("install %s: %+v; want one install failure at %s.sql:%d, permission denied", c.name, fs, c.name, lines[i])
				}
				return
			}
			fs := phases["parity "+c.name]
			if len(fs) != 1 {
				t.Fatalf("parity %s: %d findings, want 1: %+v", c.name, len(fs), fs)
			}
			f := fs[0]
			if f.Rule != parity.RuleUnreviewedDifference || f.Severity != finding.SevError || f.Object != c.kind+" "+c.object {
				t.Errorf("finding %s %s (%s): %s; want an unreviewed difference of %s %s", f.Rule, f.Object, f.Severity, f.Message, c.kind, c.object)
			}
			if c.attr != "" && !strings.Contains(f.Message, c.attr) {
				t.Errorf("message %q does not name the attribute %s", f.Message, c.attr)
			}
			if f.Pos.File != c.name+".sql" || f.Pos.Line != lines[i] {
				t.Errorf("finding at %v, want %s.sql:%d (its statement)", f.Pos, c.name, lines[i])
			}
		})
	}
	if !res.Report.Failed() {
		t.Error("the report passes")
	}
}
