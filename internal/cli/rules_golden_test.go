package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// ruleInFinding is how every text golden ends a finding's line: " [rule-id]".
var ruleInFinding = regexp.MustCompile(`\s\[([a-z0-9]+(?:-[a-z0-9]+)*)\]`)

// TestEveryRuleHasAFailingCase: every rule of every phase (the whole catalog, internal/rule)
// is reported by some golden case (a testdata want.txt, or a golden file under a testdata/golden
// directory), so no rule ships that no test has seen fire. lint's own test checks its rules
// against the findings of its cases; this one holds the other phases to the same.
func TestEveryRuleHasAFailingCase(t *testing.T) {
	seen := map[string][]string{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		golden := d.Name() == "want.txt" || strings.Contains(filepath.ToSlash(path), "/testdata/golden/")
		if !golden || !strings.Contains(filepath.ToSlash(path), "/testdata/") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range ruleInFinding.FindAllStringSubmatch(string(b), -1) {
			seen[m[1]] = append(seen[m[1]], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Rules whose failing case cannot be a golden case, and the test that makes each fire
	// instead; the test file must still name the rule.
	elsewhere := map[string]string{
		"resource-limit": "cmd/ledgercheck/limits_test.go", // needs the run's limits set small, which no golden case can
		// needs the observation's minute spent, which a golden case would wait out
		"observation-incomplete": "internal/observe/role_test.go",
	}
	for id, file := range elsewhere {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil || !strings.Contains(string(b), `"`+id+`"`) {
			t.Errorf("rule %s: %s does not make it fire (%v); give it a golden case", id, file, err)
		}
		seen[id] = append(seen[id], file)
	}
	for _, r := range rule.All() {
		if len(seen[r.ID]) == 0 {
			t.Errorf("rule %s (%s) has no golden case that reports it: add a case under testdata/%s", r.ID, r.Phase, r.Phase)
		}
	}
}
