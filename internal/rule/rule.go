// Package rule is the catalog of every rule id any phase of ledgercheck can emit: lint's static
// rules, the install, parity, probe, allowlist and rerun findings. Each is registered once, by
// the package that emits it, with a Go constant for its id, its phase and default severity; its
// documentation (summary, explanation, the squawk or splinter rule it corresponds to, its
// security severity) is its page, docs/rules/ID.md, embedded in the binary (package docs), which
// [Register] reads: the page is the one source of a rule's text.
//
// `ledgercheck explain`, SARIF's tool.driver.rules and the rules index docs/rules/README.md (and
// its generator, internal/cmd/gendocs) read the catalog through [All] and [Lookup]; nothing else
// keeps a list of rules. [Register] panics on a duplicate or malformed id, on a rule without a
// page, or on a page whose front matter disagrees with the registration: these are programming
// errors that must not ship. How to add a rule: `make new-rule ID=... PHASE=...`
// (internal/cmd/newrule) writes its Go file, its failing case and its page.
package rule

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/ledgercheck/ledgercheck/docs"
	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// PageURL returns the address of rule id's page where the rule pages are published (base, the
// address of docs/rules: BASE/ID.md, SARIF's helpUri and the html report's link), or "" when
// base is "": ledgercheck names no address it does not know to exist (a build stamps one, or
// --help-base gives it).
func PageURL(base, id string) string {
	if base == "" {
		return ""
	}
	return strings.TrimRight(base, "/") + "/" + id + ".md"
}

// IndexURL returns the address of the rules index (docs/rules/README.md) under base, or "".
func IndexURL(base string) string {
	if base == "" {
		return ""
	}
	return strings.TrimRight(base, "/") + "/README.md"
}

// unsuppressible are the lint rules no ledgercheck:ignore comment suppresses: those about the
// suppressions themselves, and about a file lint could not read.
var unsuppressible = map[string]bool{"invalid-suppression": true, "unused-suppression": true, "parse-error": true, "too-complex": true}

// Suppressible reports whether a "-- ledgercheck:ignore ID reason" comment on the line before a
// statement accepts rule id's findings at that statement: a rule of lint or of a phase that
// reads the installed database at a statement ([Installed]), but for the few above.
func Suppressible(id string) bool {
	r, ok := Registered(id)
	return ok && (r.Phase == finding.PhaseLint || Installed(r.Phase)) && !unsuppressible[id]
}

// Installed reports whether phase reads the installed database and reports at the file's
// statements, honouring their suppressions: the installed audit, the check of the installed
// bodies and the lock trace.
func Installed(phase finding.Phase) bool {
	return phase == finding.PhaseAudit || phase == finding.PhaseBodies || phase == finding.PhaseLocks
}

// Rule describes one rule.
type Rule struct {
	// ID is the rule's stable kebab-case id, used in findings, suppressions and configuration.
	ID string
	// Phase is the part of the gate that reports it.
	Phase finding.Phase
	// Severity is the default severity; lint's configuration may override it for lint rules.
	Severity finding.Severity
	// Summary and the fields below are the rule's documentation, read from its page the first
	// time [Lookup] or [All] returns the rule: [Register]'s result has none of them.
	//
	// Summary is a one-line description (the page's front matter).
	Summary string
	// Explain is the page without its front matter (markdown): what the rule catches, why it
	// matters, a failing and a corrected example, its configuration.
	Explain string
	// Page is the whole page, docs/rules/ID.md, which `ledgercheck explain ID` prints.
	Page string
	// Squawk and Splinter name the corresponding rule of those tools, if any.
	Squawk, Splinter string
	// SecuritySeverity is GitHub code scanning's security-severity ("0.1" to "10.0") of a
	// security rule, empty for the others.
	SecuritySeverity string
	// Tags are the rule's SARIF tags ("security" for a security rule).
	Tags []string
}

// Front is a rule page's front matter.
type Front struct {
	ID               string   `yaml:"id"`
	Phase            string   `yaml:"phase"`
	Severity         string   `yaml:"severity"`
	Summary          string   `yaml:"summary"`
	Squawk           string   `yaml:"squawk,omitempty"`
	Splinter         string   `yaml:"splinter,omitempty"`
	SecuritySeverity string   `yaml:"security-severity,omitempty"`
	Tags             []string `yaml:"tags,omitempty,flow"`
}

// ParsePage splits a rule page into its front matter (between "---" lines at its top) and its
// body, and checks the front matter: known keys only, a summary, a security-severity that is a
// number in (0, 10] and comes with the security tag.
func ParsePage(page []byte) (Front, string, error) {
	var f Front
	rest, ok := bytes.CutPrefix(page, []byte("---\n"))
	if !ok {
		return f, "", fmt.Errorf("no front matter (a first line ---)")
	}
	fm, body, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		return f, "", fmt.Errorf("front matter not closed (a line ---)")
	}
	dec := yaml.NewDecoder(bytes.NewReader(fm))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return f, "", fmt.Errorf("front matter: %w", err)
	}
	if f.Summary == "" {
		return f, "", fmt.Errorf("front matter has no summary")
	}
	if f.SecuritySeverity != "" {
		v, err := strconv.ParseFloat(f.SecuritySeverity, 64)
		if err != nil || v <= 0 || v > 10 {
			return f, "", fmt.Errorf("security-severity %q is not a number in (0, 10]", f.SecuritySeverity)
		}
		if !contains(f.Tags, "security") {
			return f, "", fmt.Errorf("security-severity without the security tag")
		}
	}
	return f, string(bytes.TrimLeft(body, "\n")), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// withPage returns r with its documentation read from its page, docs/rules/ID.md.
func withPage(r Rule) (Rule, error) {
	page, ok := docs.RulePage(r.ID)
	if !ok {
		return r, fmt.Errorf("no page docs/rules/%s.md (make new-rule writes one)", r.ID)
	}
	f, body, err := ParsePage(page)
	if err != nil {
		return r, fmt.Errorf("docs/rules/%s.md: %w", r.ID, err)
	}
	if f.ID != r.ID || f.Phase != string(r.Phase) || f.Severity != string(r.Severity) {
		return r, fmt.Errorf("docs/rules/%s.md says id %s, phase %s, severity %s; the rule is registered as %s, %s, %s",
			r.ID, f.ID, f.Phase, f.Severity, r.ID, r.Phase, r.Severity)
	}
	r.Summary, r.Explain, r.Page = f.Summary, body, string(page)
	r.Squawk, r.Splinter, r.SecuritySeverity, r.Tags = f.Squawk, f.Splinter, f.SecuritySeverity, f.Tags
	return r, nil
}

var (
	mu       sync.RWMutex
	registry = map[string]*entry{}
)

// entry is a registered rule: what Register was given, and the rule with its documentation,
// read from its page the first time it is looked up. Every package that registers rules does
// so when the program starts, and most runs look up a few of them: parsing every page then
// was a tenth of a lint run's CPU on the shipped pair.
type entry struct {
	rule Rule
	page func() (Rule, error)
}

// documented returns the entry's rule with its documentation. A page that does not parse or
// does not say what the rule is registered as is a defect of the build, caught by
// [CheckPages] (TestEveryRuleHasAPageAndEveryPageARule) before any release, and panics here.
func (e *entry) documented() Rule {
	r, err := e.page()
	if err != nil {
		panic(fmt.Sprintf("rule: %s: %v", e.rule.ID, err))
	}
	return r
}

// CheckPages reads the page of every registered rule and returns what is wrong with them: a
// page that does not parse or does not say what its rule is registered as (nil: none).
func CheckPages() error {
	mu.RLock()
	defer mu.RUnlock()
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(registry)) {
		if _, err := registry[id].page(); err != nil {
			errs = append(errs, fmt.Errorf("rule %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// Register adds r (its id, phase and default severity) to the catalog and returns it; [Lookup]
// and [All] return it with its documentation, read from its page on first use. It panics on a
// malformed or duplicate id, an unknown phase or severity, or a missing page (and on first use
// of a page that does not match the rule).
func Register(r Rule) Rule {
	if !ValidID(r.ID) {
		panic(fmt.Sprintf("rule: id %q is not kebab-case", r.ID))
	}
	switch r.Phase {
	case finding.PhaseLint, finding.PhaseInstall, finding.PhaseParity, finding.PhaseProbe, finding.PhaseRerun, finding.PhaseAllow, finding.PhaseAudit, finding.PhaseLocks, finding.PhaseBodies:
	default:
		panic(fmt.Sprintf("rule: %s has unknown phase %q", r.ID, r.Phase))
	}
	switch r.Severity {
	case finding.SevError, finding.SevWarning, finding.SevInfo:
	default:
		panic(fmt.Sprintf("rule: %s has unknown severity %q", r.ID, r.Severity))
	}
	if _, ok := docs.RulePage(r.ID); !ok {
		panic(fmt.Sprintf("rule: %s: no page docs/rules/%s.md (make new-rule writes one)", r.ID, r.ID))
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[r.ID]; dup {
		panic(fmt.Sprintf("rule: duplicate id %q", r.ID))
	}
	registry[r.ID] = &entry{rule: r, page: sync.OnceValues(func() (Rule, error) { return withPage(r) })}
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

// Registered returns the rule with the given id as it was registered (its id, phase and
// severity: no documentation), without reading its page.
func Registered(id string) (Rule, bool) {
	if e := find(id); e != nil {
		return e.rule, true
	}
	return Rule{}, false
}

// find returns the registry's entry for id, nil if there is none.
func find(id string) *entry {
	mu.RLock()
	defer mu.RUnlock()
	return registry[id]
}

// Lookup returns the rule with the given id, with its documentation.
func Lookup(id string) (Rule, bool) {
	if e := find(id); e != nil {
		return e.documented(), true
	}
	return Rule{}, false
}

// All returns every registered rule with its documentation, sorted by id.
func All() []Rule {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Rule, 0, len(registry))
	for _, e := range registry {
		out = append(out, e.documented())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// IDs returns the id of every registered rule, sorted.
func IDs() []string {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Sorted(maps.Keys(registry))
}
