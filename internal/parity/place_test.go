package parity_test

import (
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/parity"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/probe"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/introspect"
)

func installed(t *testing.T, name, file, src string, objects ...string) parity.Installed {
	t.Helper()
	f, err := pgsql.Parse(file, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	fp := &introspect.Footprint{}
	for _, o := range objects {
		kind, obj, _ := strings.Cut(o, " ")
		fp.Created = append(fp.Created, introspect.ObjectFacts{ObjectRef: introspect.ObjectRef{Kind: kind, Object: obj},
			Facts: []introspect.Fact{{Kind: kind, Object: obj, Attr: "owner", Value: "postgres"}}})
	}
	return parity.Installed{Name: name, File: file, Dim: 3, Source: f, Footprint: fp, Statements: locate.New(f)}
}

// Every difference points at a statement: the port's, the artifact's for an object only in
// the artifact (the message says so), for a probe the statement creating what it reads, else the
// probe in the configuration; a difference no statement explains says so.
func TestDifferencesPointAtTheirStatement(t *testing.T) {
	art := installed(t, "artifact", "a.sql", "SELECT 1;\nCREATE TABLE public.only_a (id int);\nCREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n",
		"table public.only_a", "function public.f()", "table public.nobody")
	port := installed(t, "port", "p.sql", "CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS $$ SELECT 2 $$;\n\nCREATE TABLE public.only_p (id int);\n",
		"table public.only_p", "function public.f()")
	rows := func(v string) *scratch.Rows { return &scratch.Rows{Columns: []string{"f"}, Rows: [][]string{{v}}} }
	art.Rows, art.Errs = []*scratch.Rows{rows("1"), rows("1")}, make([]error, 2)
	port.Rows, port.Errs = []*scratch.Rows{rows("2"), rows("2")}, make([]error, 2)
	probes := []probe.Probe{
		{Name: "calls-f", SQL: "SELECT public.f() AS f"},
		{Name: "reads-nothing-of-theirs", SQL: "SELECT 1 AS f FROM pg_class", Pos: finding.Position{File: "ledgercheck.yaml", Line: 40, Col: 1}},
	}
	rep, err := parity.Compare(art, port, probes, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Findings() {
		got[f.Object] = f.Pos.String() + " " + f.Message
	}
	for obj, want := range map[string]string{
		"table public.only_p":           "p.sql:3:1 table public.only_p: only in the port",
		"table public.only_a":           "a.sql:2:1 table public.only_a: only in the artifact, created at a.sql:2:1",
		"table public.nobody":           "0:0 table public.nobody: only in the artifact: no statement of either file creates or changes it",
		"probe calls-f":                 "p.sql:1:1 probe calls-f returns different rows on the two installs; it reads function public.f",
		"probe reads-nothing-of-theirs": "ledgercheck.yaml:40:1 probe reads-nothing-of-theirs returns different rows on the two installs; no statement of the port creates what it reads",
	} {
		if !strings.HasPrefix(got[obj], want) {
			t.Errorf("%s:\n got %q\nwant %q...", obj, got[obj], want)
		}
	}
}
