package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// SchemaVersion is the version of the JSON document [WriteReportJSON] writes. It changes only
// when a field is removed or changes meaning; new fields may be added within a version.
const SchemaVersion = 1

// Status is the outcome of one phase, or of the whole gate.
type Status string

// The statuses, from best to worst. A skipped phase did not run because one it depends on
// failed; it does not fail the gate by itself.
const (
	StatusPass Status = "pass"
	StatusSkip Status = "skip"
	StatusWarn Status = "warn"
	StatusFail Status = "fail"
)

func (s Status) rank() int {
	switch s {
	case StatusFail:
		return 3
	case StatusWarn:
		return 2
	case StatusSkip:
		return 1
	}
	return 0
}

// PhaseResult is what one phase of the gate found.
type PhaseResult struct {
	// Phase is the kind of phase (lint, install, parity, ...); several results may share one,
	// e.g. the lint of each variant.
	Phase finding.Phase
	// Name identifies the result in the report, e.g. "lint artifact"; unique within a report.
	Name string
	// File is the file the phase is about (a variant's migration, the allowlist). Formats that
	// need a location for a finding without a position (SARIF, github) point at line 1 of it.
	File string
	// Status is the phase's outcome. Leave it empty to derive it from the findings with
	// [Report.Finish]; set [StatusSkip] (with a note saying why) for a phase that did not run.
	Status Status
	// Duration is how long the phase took (wall clock).
	Duration time.Duration
	// Findings are the phase's findings, in the order they should be shown.
	Findings []finding.Finding
	// Notes are summary lines that are not findings: dimension normalizations, how many
	// differences the allowlist accepted, why a phase was skipped.
	Notes []string
	// Counts are named numbers for machines, e.g. {"allowlisted": 12, "cosmetic": 1}.
	Counts map[string]int
	// LeftLabel and RightLabel name the two sides of this phase's differences when they are not
	// the report's (a report with several ports); empty means [Report.LeftLabel] and RightLabel.
	LeftLabel, RightLabel string
	// Locks is a locks phase's lock table (locks.go); nil for every other phase.
	Locks []Lock
	// Sidecar names the sidecar the phase belongs to in a repository's run ([Report.Sidecars]);
	// "" in a run of one.
	Sidecar string
	// Access is an audit phase's access matrix: what each persona could do with what the file
	// made reachable, as the access observation saw it (access.go).
	Access []Access
	// Folded is how many findings of another phase, FoldedInto, stand for findings of this one
	// (one cause, one finding: internal/gate's fold.go), which are then not in Findings; every
	// format's count says so (folded.go).
	Folded     int
	FoldedInto string
}

// Errors returns the number of error findings.
func (p *PhaseResult) Errors() int { return p.count(finding.SevError) }

// Warnings returns the number of warning findings.
func (p *PhaseResult) Warnings() int { return p.count(finding.SevWarning) }

func (p *PhaseResult) count(s finding.Severity) int {
	n := 0
	for _, f := range p.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// derive returns the status the findings give.
func (p *PhaseResult) derive() Status {
	switch {
	case p.Errors() > 0:
		return StatusFail
	case p.Warnings() > 0:
		return StatusWarn
	}
	return StatusPass
}

// Report is the result of one run of the gate.
type Report struct {
	// Tool is the tool's name ("ledgercheck") and Version its version.
	Tool, Version string
	// Root is the repository root; SARIF and github locations are made relative to it. Empty
	// means the current directory.
	Root string
	// Phases are the phase results in the order they are shown.
	Phases []PhaseResult
	// Duration is the wall-clock time of the whole run.
	Duration time.Duration
	// LeftLabel and RightLabel name the two sides of differences, e.g. "artifact (1536)" and
	// "port (1024)"; empty means "left" and "right".
	LeftLabel, RightLabel string
	// Servers are the PostgreSQL servers the run installed on, each with what ran there; none
	// for a run without a database (lint without --install).
	Servers []Server
	// HelpBase is where the rule pages are published (the address of docs/rules, rule.PageURL),
	// for the formats that link to them; "" when nowhere is known: SARIF then has no helpUri
	// (its rules carry their pages as help), html embeds the pages.
	HelpBase string `json:"-"`
	// Source returns the text of a file a finding points into (nil when it cannot), for the
	// formats that quote the SQL at a finding; nil for none.
	Source func(file string) []byte `json:"-"`
	// Sidecars are the sidecars of a repository's run, in the order their phases are shown
	// (sidecars.go); none for a run of one.
	Sidecars []Sidecar
}

// Server is a PostgreSQL server a run used, and the variants (or files) that ran on it.
type Server struct {
	// Version is the server's version, major and minor: "17.10".
	Version string `json:"version"`
	// Kind is "embedded" (ledgercheck's own throwaway cluster) or "dsn" (a --dsn server).
	Kind string `json:"kind"`
	// Ran names what ran there: the variants ("artifact", "port") or the files.
	Ran []string `json:"ran"`
}

// String is the server as the text formats show it: "PostgreSQL 17.10 (embedded) for artifact,
// port".
func (s Server) String() string {
	return "PostgreSQL " + s.Version + " (" + s.Kind + ") for " + strings.Join(s.Ran, ", ")
}

// ServerLine is the line the text formats show under the verdict: "server: " and the server,
// "servers: " and each of several separated by "; ", or "" for none.
func (r *Report) ServerLine() string {
	if len(r.Servers) == 0 {
		return ""
	}
	parts := make([]string, len(r.Servers))
	for i, s := range r.Servers {
		parts[i] = s.String()
	}
	if len(parts) == 1 {
		return "server: " + parts[0]
	}
	return "servers: " + strings.Join(parts, "; ")
}

// Finish is where findings enter a report: every producer calls it once the phases are in. It
// bounds every finding ([Bound]) and derives the status of every phase whose Status
// is empty from its findings.
func (r *Report) Finish() {
	for i := range r.Phases {
		ph := &r.Phases[i]
		for j := range ph.Findings {
			ph.Findings[j] = Bound(ph.Findings[j])
		}
		if ph.Status == "" {
			ph.Status = ph.derive()
		}
	}
}

// Status is the gate's status: the worst phase status, where a skipped phase counts as a pass
// (it checked nothing, and says why in its notes); a report none of whose phases checked
// anything (every phase skipped, or none) is skipped, never passed.
func (r *Report) Status() Status {
	st, ran := StatusPass, false
	for i := range r.Phases {
		s := r.Phases[i].Status
		if s == "" {
			s = r.Phases[i].derive()
		}
		if s == StatusSkip {
			continue
		}
		ran = true
		if s.rank() > st.rank() {
			st = s
		}
	}
	if !ran {
		return StatusSkip
	}
	return st
}

// Skipped returns the names of the phases that checked nothing.
func (r *Report) Skipped() []string {
	var names []string
	for i := range r.Phases {
		if r.Phases[i].Status == StatusSkip {
			names = append(names, r.Phases[i].Name)
		}
	}
	return names
}

// Tally is what the verdict line says after the status: the findings by severity, and how many
// phases were skipped ("no findings, 2 phases skipped").
func (r *Report) Tally() string {
	e, w, i := r.Totals()
	s := severityCounts(e, w, i)
	switch n := len(r.Skipped()); {
	case n == 1:
		s += ", 1 phase skipped"
	case n > 1:
		s += fmt.Sprintf(", %d phases skipped", n)
	}
	return s
}

// Failed reports whether the gate fails: some phase has an error finding or a fail status.
func (r *Report) Failed() bool { return r.Status() == StatusFail }

// Findings returns every finding of every phase, in report order.
func (r *Report) Findings() []finding.Finding {
	var all []finding.Finding
	for i := range r.Phases {
		all = append(all, r.Phases[i].Findings...)
	}
	return all
}

// Totals returns the number of error, warning and info findings in the report.
func (r *Report) Totals() (errors, warnings, infos int) {
	for _, f := range r.Findings() {
		switch f.Severity {
		case finding.SevError:
			errors++
		case finding.SevWarning:
			warnings++
		default:
			infos++
		}
	}
	return
}

// ruleIndex returns the rules for SARIF: every rule of the catalog (internal/rule), in id
// order, plus a minimal entry for a rule a finding uses that is not registered (a test asserts
// that there is none), and the index of each id.
func (r *Report) ruleIndex() ([]rule.Rule, map[string]int) {
	rules := rule.All()
	idx := make(map[string]int, len(rules))
	for i, ru := range rules {
		idx[ru.ID] = i
	}
	var unknown []string
	for _, f := range r.Findings() {
		if _, ok := idx[f.Rule]; !ok && !slices.Contains(unknown, f.Rule) {
			unknown = append(unknown, f.Rule)
		}
	}
	if len(unknown) == 0 {
		return rules, idx
	}
	for _, id := range unknown {
		rules = append(rules, rule.Rule{ID: id, Severity: finding.SevError, Summary: id})
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	for i, ru := range rules {
		idx[ru.ID] = i
	}
	return rules, idx
}

// severityCounts formats counts like "2 errors, 1 warning", or "no findings".
func severityCounts(errors, warnings, infos int) string {
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, strconv.Itoa(n)+" "+many)
		}
	}
	add(errors, "error", "errors")
	add(warnings, "warning", "warnings")
	add(infos, "note", "notes")
	if len(parts) == 0 {
		return "no findings"
	}
	s := parts[0]
	for _, p := range parts[1:] {
		s += ", " + p
	}
	return s
}
