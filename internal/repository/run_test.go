package repository

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// Sidecars that do not need each other run side by side on one server (two at a time), each over
// the sidecars it needs, and the report holds every sidecar's phases under its name, in
// dependency order, with one verdict. It runs under the race detector (make race).
func TestRunChecksEverySidecarSideBySide(t *testing.T) {
	all := benchSidecars(t, 6) // gen-00..04 need none; gen-05 needs gen-00
	rep, err := Run(context.Background(), Request{Sidecars: all, Server: scratchtest.Server(t), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status() != report.StatusPass {
		t.Errorf("status %s, want pass", rep.Status())
	}
	var order []string // each sidecar's phases together: one name per run of phases
	for _, ph := range rep.Phases {
		for _, s := range all {
			if strings.HasSuffix(ph.Name, " "+s.Name) && (len(order) == 0 || order[len(order)-1] != s.Name) {
				order = append(order, s.Name)
			}
		}
	}
	if got := strings.Join(order, " "); got != "gen-00 gen-01 gen-02 gen-03 gen-04 gen-05" {
		t.Errorf("sidecars in the report: %q, want each of the six once, in order", got)
	}
}

// A chain of sidecars, each needing the one before, costs one install per template: the template
// of sidecar k's needs is a copy of sidecar k-1's with one more file run in it, not all k-1 files
// run again. Each sidecar is reported with its time, and no template of the chain is left once
// the run is done.
func TestChainBuildsEachTemplateFromTheOneBefore(t *testing.T) {
	srv := scratchtest.Server(t)
	all := chainSidecars(t, 5)
	for i := range all {
		all[i].Request.Steps = gate.Steps{CrossCheck: true} // install and cross-check: one template each
	}
	before := srv.LayersRun()
	rep, err := Run(context.Background(), Request{Sidecars: all, Server: srv, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status() != report.StatusPass {
		t.Errorf("status %s, want pass", rep.Status())
	}
	// chain-001 needs nothing; chain-00k's template holds k-1 files, built from chain-00(k-1)'s.
	if got, want := srv.LayersRun()-before, len(all)-1; got != want {
		t.Errorf("the chain's templates ran %d files, want %d (one per template; from template0 each would run %d)", got, want, (len(all)-1)*len(all)/2)
	}
	req := Request{Sidecars: all}
	for _, s := range all[1:] {
		for _, sp := range gate.Templates(req.sidecarRequest(s)) {
			if srv.TemplateDescription(sp.Dim, sp.Base) != nil {
				t.Errorf("the template of %s's needs is still there after the run", s.Name)
			}
		}
	}
	if len(rep.Sidecars) != len(all) {
		t.Fatalf("%d sidecars in the report, want %d", len(rep.Sidecars), len(all))
	}
	for i, s := range rep.Sidecars {
		if s.Name != all[i].Name || s.Duration <= 0 || rep.SidecarStatus(s.Name) != report.StatusPass {
			t.Errorf("sidecar %d: %s, %s, %s; want %s, a time, pass", i, s.Name, s.Duration, rep.SidecarStatus(s.Name), all[i].Name)
		}
	}
}

// A sidecar that does not install because it reads a column another sidecar adds, and does not
// say it needs it, gets the need in its install-failed finding, once installing it over that
// sidecar gets it past the statement: of two sidecars that add the column, the one over which
// the statement installs (text, compared with 'calm'), not the one the reading names first
// (integer, over which the same statement fails).
func TestSuggestsTheMissingNeedTheInstallConfirms(t *testing.T) {
	dir := t.TempDir()
	sidecar := func(name, sql string) Sidecar {
		file := filepath.Join(dir, name+".sql")
		if err := os.WriteFile(file, []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
		s := generatedSidecar(name, nil, file, sql)
		s.Request.Steps = gate.Steps{CrossCheck: true}
		return s
	}
	all := []Sidecar{
		// Both add thoughts.mood: the reading names the first, the install takes the second.
		sidecar("mood-scores", "-- ledgercheck:ignore modifies-existing-object adds a column by design\nALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS mood integer;\n"),
		sidecar("moods", "-- ledgercheck:ignore modifies-existing-object adds a column by design\nALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS mood text;\n"),
		sidecar("names", "CREATE TABLE IF NOT EXISTS public.mood_names (mood text PRIMARY KEY);\n"),
		sidecar("calm", "SELECT 1 FROM public.mood_names;\nCREATE OR REPLACE VIEW public.calm_thoughts WITH (security_invoker = true) AS\nSELECT t.id FROM public.thoughts t WHERE t.mood = 'calm';\n"),
	}
	all[3].Needs = []string{"names"} // names is needed, moods is missing
	rep, err := Run(context.Background(), Request{Sidecars: all, Server: scratchtest.Server(t), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, ph := range rep.Phases {
		for _, f := range ph.Findings {
			if f.Rule == "install-failed" {
				msg = f.Message
			}
		}
	}
	want := "calm reads column public.thoughts.mood (line 3), which moods adds (uncertain): add needs: [moods]"
	if !strings.Contains(msg, "column t.mood does not exist") || !strings.Contains(msg, want) || strings.Contains(msg, "mood-scores") {
		t.Errorf("install-failed says %q, want the missing column and %q", msg, want)
	}
}
