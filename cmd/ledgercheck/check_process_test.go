package main

// End-to-end tests of `ledgercheck check` on the built binary: SARIF that GitHub code scanning
// accepts, and GitHub workflow commands with a job summary.

import (
	"encoding/json"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/report/reporttest"
)

// runCheck runs the built binary from the repository root and returns its exit code and stdout.
func runCheck(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"check"}, args...)...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestCheckSARIFShape checks the SARIF log of the shipped set against what code scanning needs:
// version 2.1.0, a driver with a name and rules (id, descriptions, help, default level), and
// results with a known ruleId and matching ruleIndex, a level, a message, a repo-relative uri
// with uriBaseId %SRCROOT%, 1-based positions, and partial fingerprints.
func TestCheckSARIFShape(t *testing.T) {
	scratchtest.NeedPostgres(t)
	stale := filepath.Join(t.TempDir(), "allowlist.yaml")
	al, err := os.ReadFile("../../allowlist.yaml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(stale, append(al, []byte("  - kind: table\n    object: public.gone\n    attr: rls\n    artifact: \"true\"\n    port: \"false\"\n    reason: matches nothing\n")...), 0o644)
	code, out, errs := runCheck(t, nil, "-q", "--format", "sarif", "--times", "1", "--allowlist", stale)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a stale entry); stderr %s", code, errs)
	}
	var log sarifLog
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 {
		t.Fatalf("version %q schema %q runs %d", log.Version, log.Schema, len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "ledgercheck" || run.ColumnKind != "unicodeCodePoints" || len(run.Tool.Driver.Rules) < 20 {
		t.Errorf("driver %q, columnKind %q, %d rules", run.Tool.Driver.Name, run.ColumnKind, len(run.Tool.Driver.Rules))
	}
	for _, r := range run.Tool.Driver.Rules {
		if r.ID == "" || r.ShortDescription["text"] == "" || r.FullDescription["text"] == "" || r.Help["text"] == "" || r.Help["markdown"] == "" {
			t.Errorf("rule %q lacks a description or help", r.ID)
		}
		switch r.Default["level"] {
		case "error", "warning", "note":
		default:
			t.Errorf("rule %s: default level %q", r.ID, r.Default["level"])
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	outside, err := filepath.Rel(root, stale)
	if err != nil {
		t.Fatal(err)
	}
	outside = filepath.ToSlash(outside)
	found := false
	for _, res := range run.Results {
		if res.RuleIndex == nil || *res.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[*res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %s: ruleIndex does not point at its rule", res.RuleID)
		}
		if res.Message["text"] == "" || (res.Level != "error" && res.Level != "warning" && res.Level != "note") || len(res.Fingerprints) == 0 {
			t.Errorf("result %s: message %q, level %q, fingerprints %v", res.RuleID, res.Message["text"], res.Level, res.Fingerprints)
		}
		if len(res.Locations) != 1 {
			t.Errorf("result %s: %d locations", res.RuleID, len(res.Locations))
			continue
		}
		loc := res.Locations[0].Physical
		if loc.Artifact.URI == outside {
			// The test's allowlist lives outside the repository: reached from its root with "..",
			// never an absolute file URI (which names the machine that wrote the log).
			loc.Artifact.URI = "allowlist.yaml"
		}
		if loc.Artifact.Base != "%SRCROOT%" || strings.HasPrefix(loc.Artifact.URI, "/") || strings.Contains(loc.Artifact.URI, "..") || loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 {
			t.Errorf("result %s: location %+v is not repo-relative and 1-based", res.RuleID, loc)
		}
		if res.RuleID == "stale-allowlist-entry" && strings.Contains(res.Message["text"], "public.gone") {
			found = true
		}
	}
	if !found {
		t.Error("the stale entry is not among the results")
	}
}

// sarifLog is what TestCheckSARIFShape reads of a SARIF log.
type sarifLog struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		ColumnKind string `json:"columnKind"`
		Tool       struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID               string            `json:"id"`
					ShortDescription map[string]string `json:"shortDescription"`
					FullDescription  map[string]string `json:"fullDescription"`
					Help             map[string]string `json:"help"`
					Default          map[string]string `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string            `json:"ruleId"`
			RuleIndex *int              `json:"ruleIndex"`
			Level     string            `json:"level"`
			Message   map[string]string `json:"message"`
			Locations []struct {
				Physical struct {
					Artifact struct {
						URI  string `json:"uri"`
						Base string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			Fingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

// TestCheckGitHubFormat runs the binary with --format github and $GITHUB_STEP_SUMMARY set.
func TestCheckGitHubFormat(t *testing.T) {
	scratchtest.NeedPostgres(t)
	summary := filepath.Join(t.TempDir(), "summary.md")
	os.WriteFile(summary, []byte("earlier step\n"), 0o644)
	code, out, errs := runCheck(t, []string{"GITHUB_STEP_SUMMARY=" + summary}, "--format", "github", "--times", "1")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d; stderr %s", code, errs)
	}
	// Annotations, then the text report inside a ::stop-commands:: block, where the runner
	// interprets nothing.
	for _, c := range reporttest.WorkflowCommands(out) {
		if !strings.HasPrefix(c, "::error ") && !strings.HasPrefix(c, "::warning ") && !strings.HasPrefix(c, "::notice ") {
			t.Errorf("unexpected workflow command %q", c)
		}
	}
	if !strings.Contains(out, "PHASE") || !strings.Contains(errs, "check: server ready in") {
		t.Errorf("no summary table on stdout or no step timings on stderr:\n%s\n%s", out, errs)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(md), "earlier step\n## ledgercheck ") || !strings.Contains(string(md), "| phase | status | findings | time |") {
		t.Errorf("job summary not appended:\n%s", md)
	}
}
