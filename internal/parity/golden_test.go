package parity_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/golden"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/report/reporttest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/parity"
	"github.com/ledgercheck/ledgercheck/internal/probe"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// edit is one text replacement; old must occur exactly once.
type edit struct {
	Old string `yaml:"old"`
	New string `yaml:"new"`
}

// testCase is testdata/parity/<case>/case.yaml: the shipped artifact, port and allowlist, with
// edits. artifact.sql / port.sql in the case directory replace the shipped files.
type testCase struct {
	ArtifactEdits  []edit `yaml:"artifact_edits"`
	PortEdits      []edit `yaml:"port_edits"`
	AllowlistEdits []edit `yaml:"allowlist_edits"`
	// AllowlistAppend are entries (as written under entries:) appended to the allowlist.
	AllowlistAppend string `yaml:"allowlist_append"`
	Allowlist       string `yaml:"allowlist"`
}

func applyEdits(t *testing.T, what, src string, edits []edit) string {
	t.Helper()
	for _, e := range edits {
		if n := strings.Count(src, e.Old); n != 1 {
			t.Fatalf("%s edit: %q occurs %d times, want exactly once (has the shipped file changed?)", what, e.Old, n)
		}
		src = strings.Replace(src, e.Old, e.New, 1)
	}
	return src
}

func readRepo(t *testing.T, path string) string { return readRepoTB(t, path) }

func readRepoTB(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// shippedRequest is the gate's parity request for the shipped ledgercheck.yaml (fixture and
// probes), with files named as in the repository, on the package's scratch server.
func shippedRequest(t testing.TB) gate.Request {
	t.Helper()
	cfg, err := config.Load("../../ledgercheck.yaml", false)
	if err != nil {
		t.Fatal(err)
	}
	fx, err := os.ReadFile(cfg.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	req := gate.Request{Steps: gate.Steps{Parity: true}, Server: scratchtest.Server(t), Tool: "ledgercheck", Version: "test",
		Fixture: &gate.SQLFile{Name: "testdata/fixtures/ledger_fixture.sql", Src: fx}}
	for _, p := range cfg.Probes {
		req.Probes = append(req.Probes, probe.Probe{Name: p.Name, SQL: p.SQL, Tolerance: p.Tolerance, Role: p.Role})
	}
	return req
}

// runCase runs one case and renders what the parity command would print: the exit code, then
// the text report (or the error).
func runCase(t *testing.T, dir string) string {
	var tc testCase
	if b, err := os.ReadFile(filepath.Join(dir, "case.yaml")); err == nil {
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&tc); err != nil && err.Error() != "EOF" {
			t.Fatalf("case.yaml: %v", err)
		}
	}
	artifact := readRepo(t, "migrations/decision_ledger.sql")
	port := readRepo(t, "migrations/ports/decision_ledger_1024.sql")
	if b, err := os.ReadFile(filepath.Join(dir, "artifact.sql")); err == nil {
		artifact = string(b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "port.sql")); err == nil {
		port = string(b)
	}
	artifact = applyEdits(t, "artifact", artifact, tc.ArtifactEdits)
	port = applyEdits(t, "port", port, tc.PortEdits)
	allow := readRepo(t, "allowlist.yaml")
	if tc.Allowlist != "" {
		allow = tc.Allowlist
	}
	allow = applyEdits(t, "allowlist", allow, tc.AllowlistEdits)
	if tc.AllowlistAppend != "" {
		// Entries as written under entries:, indented to the shipped file's level.
		allow = strings.TrimRight(allow, "\n") + "\n  " + strings.ReplaceAll(strings.TrimRight(tc.AllowlistAppend, "\n"), "\n", "\n  ") + "\n"
	}

	req := shippedRequest(t)
	req.Artifact = gate.Variant{Name: "artifact", File: "artifact.sql", Src: []byte(artifact), Dim: 1536}
	portV := gate.Port{Variant: gate.Variant{Name: "port", File: "port.sql", Src: []byte(port), Dim: 1024}}
	exit := func(err error) string {
		code := 3
		switch {
		case errors.Is(err, fault.ErrFindings):
			code = 1
		case fault.KindOf(err) == fault.KindInput:
			code = 2
		}
		return fmt.Sprintf("exit %d\n%s\n", code, err)
	}
	al, err := allowlist.Parse("allowlist.yaml", []byte(allow))
	if err != nil {
		return exit(err)
	}
	if tc.Allowlist == "" { // the shipped allowlist, with the texts kept of its digest entries
		rv := allowlist.ReviewedPath("allowlist.yaml")
		if err := al.AttachReviewed(rv, []byte(readRepo(t, rv))); err != nil {
			return exit(err)
		}
	}
	portV.Allowlist = al
	req.Ports = []gate.Port{portV}
	res, err := gate.Run(context.Background(), req)
	if err != nil {
		return exit(err)
	}
	checkCountsAreFindings(t, res.Report)
	// The phases as every command renders them (internal/report's text format), without times
	// or the server's version.
	r := reporttest.Stable(res.Report)
	var out strings.Builder
	code := 0
	if r.Failed() {
		code = 1
	}
	fmt.Fprintf(&out, "exit %d\n", code)
	if err := report.WriteReportText(&out, r, false); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestGolden runs every case under testdata/parity and compares the exit code and the text
// report with want.txt (-update rewrites them).
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/parity/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			got := runCase(t, dir)
			golden.Check(t, filepath.Join(dir, "want.txt"), []byte(got))
		})
	}
}

// unreviewedNote is the count of unreviewed differences in a phase's note.
var unreviewedNote = regexp.MustCompile(`(\d+) unreviewed`)

// checkCountsAreFindings fails when a phase's counts, or the count of unreviewed differences
// its note gives, differ from the findings it lists: the parity phase's unreviewed and cosmetic
// differences, the probes phase's unreviewed probes (its note counts them when they are not all
// the probes that differ).
func checkCountsAreFindings(t *testing.T, rep *report.Report) {
	t.Helper()
	for _, ph := range rep.Phases {
		rules := map[string]int{}
		for _, f := range ph.Findings {
			rules[f.Rule]++
		}
		want := map[string]int{}
		switch {
		case strings.HasPrefix(ph.Name, "parity "):
			want = map[string]int{"unreviewed": rules[parity.RuleUnreviewedDifference], "cosmetic": rules[parity.RuleCosmeticDifference]}
			for k, n := range want {
				if ph.Counts[k] != n {
					t.Errorf("%s: counts %s = %d, but the phase lists %d", ph.Name, k, ph.Counts[k], n)
				}
			}
			want = map[string]int{"note": rules[parity.RuleUnreviewedDifference]}
		case strings.HasPrefix(ph.Name, "probes ") && len(ph.Notes) > 0:
			if m := unreviewedNote.FindStringSubmatch(ph.Notes[0]); m == nil && ph.Counts["differing"] != rules[parity.RuleProbeDifference] {
				t.Errorf("%s: %d probes differ, the phase lists %d, and its note %q does not say why", ph.Name, ph.Counts["differing"], rules[parity.RuleProbeDifference], ph.Notes[0])
			}
			want = map[string]int{"note": rules[parity.RuleProbeDifference]}
		}
		if n, ok := want["note"]; ok && len(ph.Notes) > 0 {
			if m := unreviewedNote.FindStringSubmatch(ph.Notes[0]); m != nil && m[1] != strconv.Itoa(n) {
				t.Errorf("%s: note %q, but the phase lists %d unreviewed", ph.Name, ph.Notes[0], n)
			}
		}
	}
}
