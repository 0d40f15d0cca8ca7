package lint

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// TestTooComplexPageNamesTheLimit: the rule's page (docs/rules/too-complex.md) states the nesting
// limit the parser enforces, so the two cannot drift apart.
func TestTooComplexPageNamesTheLimit(t *testing.T) {
	r, _ := rule.Lookup(ruleTooComplex.ID)
	if !strings.Contains(r.Page, "deeper than "+strconv.Itoa(pgsql.MaxNesting)+":") {
		t.Errorf("docs/rules/too-complex.md does not say \"deeper than %d:\", the limit of pgsql.MaxNesting", pgsql.MaxNesting)
	}
}
