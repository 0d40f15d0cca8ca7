package gate

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLeafPackagesDoNotLinkTheParser keeps the layering of docs/architecture.md: the output
// package, the scratch server, the finding model, the rule catalog and the public library
// (introspect, diff) do not link pg_query_go, the cgo SQL parser; only internal/pgsql imports it.
func TestLeafPackagesDoNotLinkTheParser(t *testing.T) {
	pkgs := []string{"github.com/ledgercheck/ledgercheck/internal/report", "github.com/ledgercheck/ledgercheck/internal/scratch", "github.com/ledgercheck/ledgercheck/diff",
		"github.com/ledgercheck/ledgercheck/introspect", "github.com/ledgercheck/ledgercheck/internal/finding", "github.com/ledgercheck/ledgercheck/internal/rule"}
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "pg_query") || dep == "github.com/ledgercheck/ledgercheck/internal/pgsql" {
			t.Errorf("%s links %s", strings.Join(pkgs, ", "), dep)
		}
	}
}
