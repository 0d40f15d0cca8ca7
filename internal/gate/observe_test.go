package gate

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// auditPhases are the report's audit phases.
func auditPhases(rep *report.Report) []report.PhaseResult {
	var out []report.PhaseResult
	for _, ph := range rep.Phases {
		if strings.HasPrefix(ph.Name, "audit ") {
			out = append(out, ph)
		}
	}
	return out
}

// The shipped ledger and its port, over the fixture, under both privilege models: no persona can
// do anything with what they create (every table is service_role's), so the audit reports
// nothing, and the observation says what it did not have to try.
func TestObservedShippedPairIsClean(t *testing.T) {
	t.Parallel()
	srv := scratchtest.Server(t)
	read := func(p string) []byte {
		b, err := os.ReadFile("../../" + p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	res, err := Run(context.Background(), Request{
		Artifact: Variant{Name: "artifact", File: "migrations/decision_ledger.sql", Src: read("migrations/decision_ledger.sql"), Dim: 1536},
		Ports:    []Port{{Variant: Variant{Name: "production-1024", File: "migrations/ports/decision_ledger_1024.sql", Src: read("migrations/ports/decision_ledger_1024.sql"), Dim: 1024}}},
		Fixture:  &SQLFile{Name: "testdata/fixtures/ledger_fixture.sql", Src: read("testdata/fixtures/ledger_fixture.sql")},
		Steps:    Steps{Audit: true}, Lint: config.DefaultLint(), Server: srv,
	})
	if err != nil {
		t.Fatal(err)
	}
	phases := auditPhases(res.Report)
	if len(phases) != 2 {
		t.Fatalf("%d audit phases, want 2", len(phases))
	}
	for _, ph := range phases {
		if len(ph.Findings) > 0 || ph.Status != report.StatusPass {
			t.Errorf("%s: %s, findings %v", ph.Name, ph.Status, ph.Findings)
		}
		for _, a := range ph.Access {
			if a.Allowed && a.Rows > 0 {
				t.Errorf("%s: %s could %s %s: %d rows", ph.Name, a.Persona, a.Action, a.Object, a.Rows)
			}
		}
		if !strings.Contains(strings.Join(ph.Notes, "\n"), "observed: no request to make: ") {
			t.Errorf("%s: the notes do not say which requests were not made:\n%s", ph.Name, strings.Join(ph.Notes, "\n"))
		}
	}
}

// What a file opens on an object it changed is compared with the base it is installed over: a
// policy that opens public.thoughts to anon is reported, while a prerequisite's table that anon
// could already read is not reported for the trigger the file adds to it; the notes say that
// pg_graphql would publish thoughts to anon (granted by the file), not the board (the base's).
func TestObservationReportsOnlyWhatTheFileOpened(t *testing.T) {
	t.Parallel()
	srv := scratchtest.Server(t)
	prereq := []byte(`CREATE TABLE public.community_board (id bigint PRIMARY KEY, note text);
ALTER TABLE public.community_board ENABLE ROW LEVEL SECURITY;
CREATE POLICY board_read ON public.community_board FOR SELECT TO anon USING (true);
GRANT SELECT ON public.community_board TO anon;
`)
	src := []byte(`CREATE OR REPLACE FUNCTION public.board_touch() RETURNS trigger LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN RETURN NEW; END $$;
CREATE TRIGGER board_touch BEFORE UPDATE ON public.community_board FOR EACH ROW EXECUTE FUNCTION public.board_touch();
CREATE POLICY thoughts_public_read ON public.thoughts FOR SELECT TO anon USING (NOT false);
GRANT SELECT ON public.thoughts TO anon;
NOTIFY pgrst, 'reload schema';
`)
	res, err := Run(context.Background(), Request{
		Artifact:      Variant{Name: "artifact", File: "open.sql", Src: src, Dim: 1536},
		Prerequisites: []SQLFile{{Name: "board.sql", Src: prereq}},
		Steps:         Steps{Audit: true}, Lint: config.DefaultLint(), Server: srv,
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range auditPhases(res.Report)[0].Findings {
		got = append(got, f.Rule+"@"+f.Pos.String()+" "+f.Object)
	}
	want := "anon-reads-rows@open.sql:4:1 table public.thoughts"
	if len(got) != 1 || got[0] != want {
		t.Errorf("audit findings %q, want [%s]: the board was readable before the file", got, want)
	}
	// pg_graphql, where enabled, publishes what anon may select (splinter 0026, modelled).
	notes := strings.Join(auditPhases(res.Report)[0].Notes, "\n")
	if !strings.Contains(notes, "new-defaults: where pg_graphql is enabled") || !strings.Contains(notes, "anon table public.thoughts (splinter 0026)") || strings.Contains(notes, "community_board") {
		t.Errorf("no note says what pg_graphql would publish:\n%s", notes)
	}
}

// Where the catalog says anon reads every row and the observation shows it reads none (here:
// the schema, which the configuration says the Data API serves, gives anon no USAGE), the
// observation decides: no finding, and a note says why.
func TestObservationDecidesAgainstTheCatalog(t *testing.T) {
	t.Parallel()
	srv := scratchtest.Server(t)
	cfg := config.DefaultLint()
	cfg.ExposedSchemas = []string{"public", "reports"}
	src := []byte(`CREATE SCHEMA IF NOT EXISTS reports;
CREATE TABLE IF NOT EXISTS reports.summaries (id bigint PRIMARY KEY, body text);
ALTER TABLE reports.summaries ENABLE ROW LEVEL SECURITY;
CREATE POLICY summaries_read ON reports.summaries FOR SELECT TO anon USING (true);
GRANT SELECT ON reports.summaries TO anon;
NOTIFY pgrst, 'reload schema';
`)
	res, err := Run(context.Background(), Request{
		Artifact: Variant{Name: "artifact", File: "reports.sql", Src: src, Dim: 1536},
		Steps:    Steps{Audit: true}, Lint: cfg, Server: srv,
	})
	if err != nil {
		t.Fatal(err)
	}
	ph := auditPhases(res.Report)[0]
	for _, f := range ph.Findings {
		if f.Rule == "api-reads-every-row" {
			t.Errorf("reported %s: %s", f.Rule, f.Message)
		}
	}
	if !strings.Contains(strings.Join(ph.Notes, "\n"), "not reported: api-reads-every-row says table reports.summaries") {
		t.Errorf("no note says the observation decided:\n%s", strings.Join(ph.Notes, "\n"))
	}
}
