package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/report/reporttest"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// driftedRepo writes a repository (a .git directory, ledgercheck.yaml, the shipped artifact and
// allowlist, and the shipped port with the contributor's changes of issue 17 as
// migrations/my_port.sql, ending in a GRANT to anon) and returns its directory and the line of
// that GRANT.
func driftedRepo(t *testing.T) (string, int) {
	t.Helper()
	repo := t.TempDir()
	abs := func(p string) string {
		a, err := filepath.Abs(filepath.Join("../..", p))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, d := range []string{".git", "migrations"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyTo(t, repo, abs("allowlist.yaml"), "allowlist.yaml", func(s string) string { return s })
	for _, f := range []string{"testdata/fixtures/first_cut.sql", "testdata/fixtures/ledger_fixture.sql"} {
		copyTo(t, filepath.Join(repo, "migrations"), abs(f), filepath.Base(f), func(s string) string { return s })
	}
	copyTo(t, filepath.Join(repo, "migrations"), abs("migrations/decision_ledger.sql"), "decision_ledger.sql", func(s string) string { return s })
	var grantLine int
	copyTo(t, filepath.Join(repo, "migrations"), abs("migrations/ports/decision_ledger_1024.sql"), "my_port.sql", func(s string) string {
		for _, e := range [][2]string{
			{"  pinned_at  timestamptz NOT NULL DEFAULT now()\n);", "  pinned_at  timestamptz NOT NULL DEFAULT now(),\n  note       text\n);\nCREATE INDEX IF NOT EXISTS idx_agent_decision_pins_by ON public.agent_decision_pins (pinned_by);"},
			{"p_half_life_steps       float DEFAULT 30.0,", "p_half_life_steps       float DEFAULT 45.0,"},
			{"trg_agent_decision_ledger_updated_at", "trg_agent_decision_ledger_touch_updated_at"},
		} {
			if !strings.Contains(s, e[0]) {
				t.Fatalf("the shipped port has no %q", e[0])
			}
			s = strings.ReplaceAll(s, e[0], e[1])
		}
		s += "UPDATE public.agent_decision_ledger SET recall_count = recall_count + 1;\n"
		grantLine = strings.Count(s, "\n") + 1
		return s + "GRANT SELECT ON public.agent_recall_policy_stats TO anon;\n"
	})
	copyTo(t, repo, abs("ledgercheck.yaml"), "ledgercheck.yaml", func(s string) string {
		for _, e := range [][2]string{
			{"file: migrations/ports/decision_ledger_1024.sql", "file: migrations/my_port.sql"},
			{"previous: testdata/fixtures/first_cut.sql", "previous: migrations/first_cut.sql"},
			{"fixture: testdata/fixtures/ledger_fixture.sql", "fixture: migrations/ledger_fixture.sql"},
		} {
			if !strings.Contains(s, e[0]) {
				t.Fatalf("the shipped ledgercheck.yaml has no %q", e[0])
			}
			s = strings.Replace(s, e[0], e[1], 1)
		}
		return s
	})
	return repo, grantLine
}

// Every finding of a drifted run points at a statement (issue 17): the grant to anon appended
// at line N is the SARIF result at startLine N; no result sits at line 1 unless its message
// says that no statement explains it; and the URIs are relative to the repository root (the
// directory holding .git), also when ledgercheck runs from a subdirectory.
func TestEveryFindingOfADriftedRunHasItsStatement(t *testing.T) {
	if testing.Short() {
		t.Skip("installs the shipped pair")
	}
	repo, grantLine := driftedRepo(t)
	t.Chdir(filepath.Join(repo, "migrations"))
	rep := runCheck(t, scratchtest.Server(t), "--config", "../ledgercheck.yaml", "--times", "2")
	var b bytes.Buffer
	o := outputFlags{format: formatFlag{value: "sarif"}, color: "never"}
	if err := o.render(&globals{stdout: &b, stderr: io.Discard}, rep); !errors.Is(err, fault.ErrFindings) {
		t.Fatalf("render: %v, want the findings error", err)
	}
	var log reporttest.SARIF
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	grantFound := false
	for _, r := range log.Runs[0].Results {
		rules[r.RuleID] = true
		first := strings.SplitN(r.Message.Text, "\n", 2)[0]
		if len(r.Locations) != 1 {
			t.Errorf("%s %q: %d locations, want 1", r.RuleID, first, len(r.Locations))
			continue
		}
		loc := r.Locations[0].PhysicalLocation
		if uri := loc.ArtifactLocation.URI; strings.HasPrefix(uri, "file:") || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" ||
			uri != "migrations/my_port.sql" && uri != "migrations/decision_ledger.sql" && uri != "allowlist.yaml" && uri != "ledgercheck.yaml" {
			t.Errorf("%s %q: uri %q (base %q), want one relative to the repository root", r.RuleID, first, uri, loc.ArtifactLocation.URIBaseID)
		}
		if loc.Region.StartLine == 1 && !strings.Contains(first, "no statement") {
			t.Errorf("%s %q: at line 1 of %s, and the message does not say that no statement explains it", r.RuleID, first, loc.ArtifactLocation.URI)
		}
		if r.RuleID == "unreviewed-difference" && strings.Contains(first, "acl:anon of view public.agent_recall_policy_stats") {
			grantFound = true
			if loc.Region.StartLine != grantLine || loc.ArtifactLocation.URI != "migrations/my_port.sql" {
				t.Errorf("the grant to anon: %s:%d, want migrations/my_port.sql:%d", loc.ArtifactLocation.URI, loc.Region.StartLine, grantLine)
			}
		}
	}
	if !grantFound {
		t.Error("no unreviewed-difference result for the grant to anon")
	}
	for _, id := range []string{"unreviewed-difference", "probe-difference", "rerun-rows-changed"} {
		if !rules[id] {
			t.Errorf("no %s result: the drifted port is meant to give one", id)
		}
	}
}

// The repository root is --repo-root, else the nearest directory up from the working directory
// that holds .git (a directory, or a worktree's file), else the working directory.
func TestRepoRoot(t *testing.T) {
	repo := t.TempDir()
	sub := filepath.Join(repo, "migrations", "ports")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	if got := repoRoot(""); got != repo {
		t.Errorf("from %s: %q, want %q", sub, got, repo)
	}
	if got := repoRoot("/x"); got != "/x" {
		t.Errorf("--repo-root /x: %q", got)
	}
	plain := t.TempDir()
	t.Chdir(plain)
	if got := repoRoot(""); got != plain && !strings.HasPrefix(plain, got) {
		t.Errorf("outside a repository: %q, want the working directory %q", got, plain)
	}
}
