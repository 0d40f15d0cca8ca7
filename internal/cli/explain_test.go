package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// TestExplainPrintsThePage: `ledgercheck explain ID` prints docs/rules/ID.md as it is in the
// repository, for every rule (the binary carries the pages; a stale copy would show here).
func TestExplainPrintsThePage(t *testing.T) {
	ids := rule.IDs()
	if len(ids) < 50 {
		t.Fatalf("%d rules registered; the gate's packages are not linked", len(ids))
	}
	for _, id := range ids {
		want, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules", id+".md"))
		if err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI(t, "explain", id)
		if code != ExitOK || out != string(want) || errs != "" {
			t.Errorf("explain %s: exit %d, stderr %q; stdout is not docs/rules/%s.md", id, code, errs, id)
		}
	}
}
