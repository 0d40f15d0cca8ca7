// Package docs holds the pages of ledgercheck's documentation that the binary carries: one page
// per rule (rules/ID.md), the single source of every rule's summary and explanation, which
// `ledgercheck explain ID` prints and SARIF's rule help is. internal/rule reads a rule's page when
// the rule is registered.
package docs

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed rules/*.md
var rules embed.FS

// RuleIndex is the generated index of the rule pages (rules/README.md), which is not a rule.
const RuleIndex = "README.md"

// RulePage returns the page of rule id (docs/rules/ID.md), and whether there is one.
func RulePage(id string) ([]byte, bool) {
	if id == "" || strings.ContainsAny(id, "/.") {
		return nil, false
	}
	b, err := rules.ReadFile("rules/" + id + ".md")
	return b, err == nil
}

// RulePageIDs returns the id of every rule page, sorted.
func RulePageIDs() []string {
	entries, _ := fs.ReadDir(rules, "rules")
	var ids []string
	for _, e := range entries {
		if n := e.Name(); n != RuleIndex && strings.HasSuffix(n, ".md") {
			ids = append(ids, strings.TrimSuffix(n, ".md"))
		}
	}
	sort.Strings(ids)
	return ids
}
