package gate

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// ruleInBrackets is how the text formats show a finding's rule: "... [rule-id]" at the end of
// its line.
var ruleInBrackets = regexp.MustCompile(`(?m)\[([a-z0-9-]+)\]\s*$`)

// TestEveryReportedRuleIsRegistered runs the failing lint goldens, and reads the golden reports
// of the phases that need Postgres (rerun, parity: their own tests prove the reports are what the
// code prints), and fails when a finding carries a rule id that the catalog does not know: then
// `ledgercheck explain ID` would fail and SARIF would carry a rule without help.
func TestEveryReportedRuleIsRegistered(t *testing.T) {
	seen := map[string]string{}
	inputs, _ := filepath.Glob("../../testdata/lint/*/input.sql")
	for _, in := range inputs {
		src, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		cfg := config.DefaultLint()
		if f, err := os.Open(filepath.Join(filepath.Dir(in), "config.yaml")); err == nil {
			cfg, err = lint.LoadConfig(f)
			f.Close()
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
		}
		for _, f := range lint.Source(in, src, cfg, lint.Options{}) {
			seen[f.Rule] = in
		}
	}
	wants, _ := filepath.Glob("../../testdata/*/*/want.txt")
	for _, w := range wants {
		b, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ruleInBrackets.FindAllSubmatch(b, -1) {
			seen[string(m[1])] = w
		}
	}
	if len(seen) < 20 {
		t.Fatalf("only %d rule ids found in the goldens; is the testdata where this test looks?", len(seen))
	}
	for id, where := range seen {
		if _, ok := rule.Lookup(id); !ok {
			t.Errorf("%s reports rule %q, which is not registered in internal/rule", where, id)
		}
	}
	for _, id := range []string{RuleInstallFailed, "rerun-failed", "unreviewed-difference", "stale-allowlist-entry", "undeclared-change"} {
		if _, ok := rule.Lookup(id); !ok {
			t.Errorf("rule %s is not registered", id)
		}
	}
}
