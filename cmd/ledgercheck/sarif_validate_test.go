package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// multitoolEnv names the SARIF multitool (`sarif-multitool`, from npm's @microsoft/sarif-multitool)
// that TestSARIFValidatesWithTheMultitool runs. `make sarif-validate` installs the tool and sets
// it; `make test` does not (a 95 MB .NET binary from npm is not among the README's setup on a
// fresh Debian machine), and without it the test skips, saying so.
const multitoolEnv = "LEDGERCHECK_SARIF_MULTITOOL"

// TestSARIFValidatesWithTheMultitool runs a failing lint (every rule of the catalog is in the
// log's driver, and a result of each kind of position) through the SARIF multitool's validate:
// the log must have no error and no warning (SARIF1001: a rule name equal to its id; SARIF2005: a
// driver without informationUri; ...), as GitHub code scanning ingests it. The log is a release
// build's, whose rule pages have an address (--help-base, as make dist HELP_BASE=URL stamps): a
// build without one names no informationUri nor helpUri, which the multitool would warn about.
func TestSARIFValidatesWithTheMultitool(t *testing.T) {
	tool := os.Getenv(multitoolEnv)
	if tool == "" {
		t.Skipf("%s is not set; `make sarif-validate` installs the SARIF multitool and runs this test", multitoolEnv)
	}
	bin := binary(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "lint.sarif")
	cmd := exec.Command(bin, "lint", "--output", "sarif="+log, "--format", "text", "--help-base", "https://docs.example.invalid/ledgercheck/docs/rules",
		"../../testdata/lint/not-idempotent/input.sql")
	if out, err := cmd.CombinedOutput(); err == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("lint of a failing file: %v, want exit 1\n%s", err, out)
	}
	res := filepath.Join(dir, "validation.sarif")
	if out, err := exec.Command(tool, "validate", log, "--output", res, "--level", "Error", "Warning").CombinedOutput(); err != nil {
		t.Fatalf("%s validate: %v\n%s", tool, err, out)
	}
	data, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text      string   `json:"text"`
					ID        string   `json:"id"`
					Arguments []string `json:"arguments"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &v); err != nil || len(v.Runs) == 0 {
		t.Fatalf("the multitool's output: %v", err)
	}
	for _, r := range v.Runs[0].Results {
		if r.Level == "" || r.Level == "error" || r.Level == "warning" {
			t.Errorf("%s (%s): %s %s", r.RuleID, r.Level, r.Message.ID, strings.Join(r.Message.Arguments, "; "))
		}
	}
}
