package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// sidecar reads a file of testdata/sidecar: notes.sql, a sidecar that references a table of
// another sidecar, deps/tags.sql.
func sidecar(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/sidecar", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkRequest is check's request for the sidecar (no ports) on the package's server.
func checkRequest(t *testing.T) Request {
	return Request{
		Artifact: Variant{Name: "artifact", File: "sidecar.sql", Src: []byte(sidecar(t, "notes.sql")), Dim: 1536},
		Steps:    Steps{Lint: true, CrossCheck: true, Parity: true, Rerun: true},
		Lint:     config.DefaultLint(),
		Server:   scratchtest.Server(t),
		Times:    2,
	}
}

func phaseNames(rep *report.Report) []string {
	var names []string
	for _, ph := range rep.Phases {
		names = append(names, ph.Name+" "+string(ph.Status))
	}
	return names
}

// With no ports, check runs lint, install, cross-check and rerun on the artifact alone, and
// reports parity as skipped, with the reason. A prerequisite file the sidecar needs goes into
// the template; without it the sidecar fails to install, at its line, with the server's message.
func TestArtifactAloneWithPrerequisiteFiles(t *testing.T) {
	req := checkRequest(t)
	req.Prerequisites = []SQLFile{{Name: "deps/tags.sql", Src: []byte(sidecar(t, "deps/tags.sql"))}}
	var (
		mu       sync.Mutex
		progress []string
	)
	req.Logf = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		progress = append(progress, fmt.Sprintf(format, args...))
	}
	res, err := Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lint artifact pass", "parity skip", "lint installed artifact pass", "rerun artifact pass"}
	if got := phaseNames(res.Report); !slices.Equal(got, want) || res.Report.Failed() {
		t.Fatalf("phases = %q, want %q", got, want)
	}
	// With no fixture, the progress does not claim one was loaded.
	if all := strings.Join(progress, "\n"); !strings.Contains(all, "sidecar.sql at dimension 1536 installed (no fixture) in") || strings.Contains(all, "fixture loaded") {
		t.Errorf("progress without a fixture:\n%s", all)
	}
	if notes := res.Report.Phases[1].Notes; len(notes) != 1 || !strings.Contains(notes[0], "no ports") {
		t.Errorf("parity's notes = %q, want the reason it was skipped", notes)
	}

	req = checkRequest(t)
	res, err = Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"lint artifact pass", "install artifact fail", "parity skip", "lint installed artifact skip", "rerun artifact skip"}
	if got := phaseNames(res.Report); !slices.Equal(got, want) {
		t.Fatalf("without the prerequisite: phases = %q, want %q", got, want)
	}
	f := res.Report.Phases[1].Findings[0]
	if f.Rule != "install-failed" || f.Pos.String() != "sidecar.sql:1:1" || !strings.Contains(f.Message, `relation "public.tags" does not exist`) {
		t.Errorf("install finding = %s %s: %s", f.Rule, f.Pos, f.Message)
	}
}

// A prerequisite file that fails is an install-failed finding at its own line, for every
// variant at that dimension, and nothing else runs in their databases.
func TestPrerequisiteFileThatFails(t *testing.T) {
	req := checkRequest(t)
	req.Prerequisites = []SQLFile{{Name: "deps/base.sql", Src: []byte("CREATE TABLE IF NOT EXISTS public.tags (id bigint PRIMARY KEY);\nSELECT no_such_function();\n")}}
	req.Ports = []Port{{Variant: Variant{Name: "copy", File: "copy.sql", Src: []byte(sidecar(t, "notes.sql")), Dim: 1536}}}
	res, err := Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lint artifact pass", "lint copy pass", "install artifact fail", "install copy fail", "parity copy skip",
		"lint installed artifact skip", "lint installed copy skip", "rerun artifact skip", "rerun copy skip"}
	if got := phaseNames(res.Report); !slices.Equal(got, want) {
		t.Fatalf("phases = %q, want %q", got, want)
	}
	for _, ph := range res.Report.Phases[2:4] {
		if f := ph.Findings[0]; f.Pos.String() != "deps/base.sql:2:8" || !strings.Contains(f.Message, "no_such_function() does not exist") || len(ph.Notes) != 1 {
			t.Errorf("%s: %s: %s; notes %q", ph.Name, f.Pos, f.Message, ph.Notes)
		}
	}
}

// Each port is compared with the artifact through its own allowlist and reported under its own
// name; a difference in one port fails that port's phases only.
func TestSeveralPorts(t *testing.T) {
	notes := sidecar(t, "notes.sql")
	drifted := strings.Replace(notes, "TO service_role;\n", "TO service_role;\nGRANT SELECT ON public.notes TO anon;\n", 1)
	al, err := allowlist.Parse("empty.yaml", []byte("version: 2\nentries: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	req := checkRequest(t)
	req.Steps = Steps{Parity: true}
	req.Prerequisites = []SQLFile{{Name: "deps/tags.sql", Src: []byte(sidecar(t, "deps/tags.sql"))}}
	req.Ports = []Port{
		{Variant: Variant{Name: "same-768", File: "same.sql", Src: []byte(notes), Dim: 768}, Allowlist: al},
		{Variant: Variant{Name: "drifted-1024", File: "drifted.sql", Src: []byte(drifted), Dim: 1024}},
	}
	res, err := Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// No probes: both probes phases are skipped; the drifted port has no allowlist: skipped too.
	want := []string{"parity same-768 pass", "probes same-768 skip", "allowlist same-768 pass",
		"parity drifted-1024 fail", "probes drifted-1024 skip", "allowlist drifted-1024 skip"}
	if got := phaseNames(res.Report); !slices.Equal(got, want) {
		t.Fatalf("phases = %q, want %q", got, want)
	}
	par := res.Report.Phases[3]
	if len(par.Findings) != 1 || par.Findings[0].Object != "table public.notes" || !strings.Contains(par.Findings[0].Message, "acl:anon") ||
		par.RightLabel != "drifted-1024 (1024)" || !strings.Contains(par.Notes[0], "the port drifted-1024 drifted.sql (1024)") {
		t.Errorf("parity drifted-1024 = %+v", par)
	}
	if res.Report.Phases[0].Notes[0] != "0 differences between the artifact sidecar.sql (1536) and the port same-768 same.sql (768): 0 allowlisted, 0 cosmetic, 0 unreviewed" {
		t.Errorf("parity same-768 notes = %q", res.Report.Phases[0].Notes)
	}
	if len(res.Parity) != 2 || res.Parity[1].Outcome.Passed() {
		t.Errorf("the comparisons of the two ports: %+v", res.Parity)
	}
}
