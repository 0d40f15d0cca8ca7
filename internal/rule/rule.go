// Package rule is the catalog of every rule id any phase of ledgercheck can emit: lint's static
// rules, the install, parity, probe, allowlist and rerun findings. Each is registered once, by
// the package that emits it, with a Go constant for its id, its phase, default severity, a
// one-line summary and the explain text (why it exists, and a corrected example).
//
// `ledgercheck explain`, SARIF's tool.driver.rules, the README's rules section and its
// generator (internal/cmd/gendocs) read the catalog through [All] and [Lookup]; nothing else
// keeps a list of rules. [Register] panics on a duplicate or malformed id, or on missing text:
// two rules with one id are a programming error that must not ship. How to add a rule:
// docs/architecture.md, "Adding a rule".
package rule

import (
	"fmt"
	"sort"
	"sync"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// Rule describes one rule.
type Rule struct {
	// ID is the rule's stable kebab-case id, used in findings, suppressions and configuration.
	ID string
	// Phase is the part of the gate that reports it.
	Phase finding.Phase
	// Severity is the default severity; lint's configuration may override it for lint rules.
	Severity finding.Severity
	// Summary is a one-line description.
	Summary string
	// Explain is the text of `ledgercheck explain ID`: why the rule exists and a corrected
	// example.
	Explain string
}

var (
	mu       sync.RWMutex
	registry = map[string]Rule{}
)

// Register adds r to the catalog and returns it. It panics on a malformed or duplicate id, an
// unknown phase or severity, or an empty summary or explain text.
func Register(r Rule) Rule {
	if !ValidID(r.ID) {
		panic(fmt.Sprintf("rule: id %q is not kebab-case", r.ID))
	}
	switch r.Phase {
	case finding.PhaseLint, finding.PhaseInstall, finding.PhaseParity, finding.PhaseProbe, finding.PhaseRerun, finding.PhaseAllow, finding.PhaseAudit:
	default:
		panic(fmt.Sprintf("rule: %s has unknown phase %q", r.ID, r.Phase))
	}
	switch r.Severity {
	case finding.SevError, finding.SevWarning, finding.SevInfo:
	default:
		panic(fmt.Sprintf("rule: %s has unknown severity %q", r.ID, r.Severity))
	}
	if r.Summary == "" || r.Explain == "" {
		panic(fmt.Sprintf("rule: %s has no summary or explain text", r.ID))
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[r.ID]; dup {
		panic(fmt.Sprintf("rule: duplicate id %q", r.ID))
	}
	registry[r.ID] = r
	return r
}

// ValidID reports whether id is kebab-case: lower-case letters, digits and inner hyphens.
func ValidID(id string) bool {
	if id == "" || id[0] == '-' || id[len(id)-1] == '-' {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Lookup returns the rule with the given id.
func Lookup(id string) (Rule, bool) {
	mu.RLock()
	defer mu.RUnlock()
	r, ok := registry[id]
	return r, ok
}

// All returns every registered rule, sorted by id.
func All() []Rule {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// IDs returns the id of every registered rule, sorted.
func IDs() []string {
	all := All()
	ids := make([]string, len(all))
	for i, r := range all {
		ids[i] = r.ID
	}
	return ids
}
