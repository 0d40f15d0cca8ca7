package gate

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// TestSuppressibleIsWhatLintAccepts: rule.Suppressible, which the reports read to offer a
// suppression comment as the way to accept a finding, says yes for exactly the rules whose
// `-- ledgercheck:ignore RULE reason` lint accepts (no invalid-suppression finding), for every
// registered rule of every phase.
func TestSuppressibleIsWhatLintAccepts(t *testing.T) {
	ids := rule.IDs()
	var src strings.Builder
	for _, id := range ids {
		src.WriteString("-- ledgercheck:ignore " + id + " reviewed on purpose\nSELECT 1;\n")
	}
	rep, err := Lint(context.Background(), LintRequest{Request: Request{Lint: config.DefaultLint()}, Files: []string{"s.sql"},
		Read: func(string) ([]byte, error) { return []byte(src.String()), nil }})
	if err != nil {
		t.Fatal(err)
	}
	refused := map[int]string{} // line of the comment -> why
	for _, f := range rep.Findings() {
		if f.Rule == "invalid-suppression" {
			refused[f.Pos.Line] = f.Message
		}
	}
	suppressible := 0
	for i, id := range ids {
		why, isRefused := refused[2*i+1]
		if rule.Suppressible(id) == isRefused {
			t.Errorf("%s: rule.Suppressible = %v, and lint refuses its suppression: %v (%s)", id, rule.Suppressible(id), isRefused, why)
		}
		if rule.Suppressible(id) {
			suppressible++
		}
	}
	if suppressible < 20 || suppressible == len(ids) {
		t.Errorf("%d of %d rules suppressible: the test does not tell them apart", suppressible, len(ids))
	}
}
