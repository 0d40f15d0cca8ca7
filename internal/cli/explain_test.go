package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// TestExplainPrintsThePage: `ledgercheck explain ID` prints docs/rules/ID.md as it is in the
// repository without its front matter, from its title on, for every rule (the binary carries the
// pages; a stale copy would show here): `explain ID | head` shows the page, not YAML.
func TestExplainPrintsThePage(t *testing.T) {
	ids := rule.IDs()
	if len(ids) < 50 {
		t.Fatalf("%d rules registered; the gate's packages are not linked", len(ids))
	}
	for _, id := range ids {
		page, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules", id+".md"))
		if err != nil {
			t.Fatal(err)
		}
		_, body, ok := strings.Cut(string(page), "\n---\n\n")
		if !strings.HasPrefix(string(page), "---\n") || !ok {
			t.Fatalf("docs/rules/%s.md does not start with front matter", id)
		}
		code, out, errs := runCLI(t, "explain", id)
		if code != ExitOK || out != body || errs != "" || !strings.HasPrefix(out, "# "+id+"\n") {
			t.Errorf("explain %s: exit %d, stderr %q; stdout is not docs/rules/%s.md without its front matter:\n%.200s", id, code, errs, id, out)
		}
	}
}
