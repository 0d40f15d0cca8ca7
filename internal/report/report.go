package report

import (
	"sort"
	"strconv"
	"time"
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
	Phase Phase
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
	Findings []Finding
	// Notes are summary lines that are not findings: dimension normalizations, how many
	// differences the allowlist accepted, why a phase was skipped.
	Notes []string
	// Counts are named numbers for machines, e.g. {"allowlisted": 12, "cosmetic": 1}.
	Counts map[string]int
}

// Errors returns the number of error findings.
func (p *PhaseResult) Errors() int { return p.count(SevError) }

// Warnings returns the number of warning findings.
func (p *PhaseResult) Warnings() int { return p.count(SevWarning) }

func (p *PhaseResult) count(s Severity) int {
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

// RuleInfo describes a rule for formats that carry rule metadata (SARIF). The caller passes the
// rules of every finding it reports: lint's registry, and the gate's own rules for parity,
// rerun and allowlist findings.
type RuleInfo struct {
	// ID is the rule id findings carry in [Finding.Rule].
	ID string
	// Severity is the default severity.
	Severity Severity
	// Summary is a one-line description.
	Summary string
	// Help is the long explanation (`ledgercheck explain ID`), plain text.
	Help string
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
	// Rules is the metadata of the rules findings refer to, for SARIF; findings whose rule is
	// not listed get a minimal rule entry.
	Rules []RuleInfo
}

// Finish is where findings enter a report: every producer calls it once the phases are in. It
// bounds every finding ([Finding.Bounded]) and derives the status of every phase whose Status
// is empty from its findings.
func (r *Report) Finish() {
	for i := range r.Phases {
		ph := &r.Phases[i]
		for j := range ph.Findings {
			ph.Findings[j] = ph.Findings[j].Bounded()
		}
		if ph.Status == "" {
			ph.Status = ph.derive()
		}
	}
}

// Status is the gate's status: the worst phase status, where a skipped phase counts as a pass
// (it was skipped because another phase failed) and a report with no phases passes.
func (r *Report) Status() Status {
	st := StatusPass
	for i := range r.Phases {
		s := r.Phases[i].Status
		if s == "" {
			s = r.Phases[i].derive()
		}
		if s != StatusSkip && s.rank() > st.rank() {
			st = s
		}
	}
	return st
}

// Failed reports whether the gate fails: some phase has an error finding or a fail status.
func (r *Report) Failed() bool { return r.Status() == StatusFail }

// Findings returns every finding of every phase, in report order.
func (r *Report) Findings() []Finding {
	var all []Finding
	for i := range r.Phases {
		all = append(all, r.Phases[i].Findings...)
	}
	return all
}

// Totals returns the number of error, warning and info findings in the report.
func (r *Report) Totals() (errors, warnings, infos int) {
	for _, f := range r.Findings() {
		switch f.Severity {
		case SevError:
			errors++
		case SevWarning:
			warnings++
		default:
			infos++
		}
	}
	return
}

// ruleIndex returns the rules for SARIF: the given metadata for every rule a finding uses (in
// id order), plus a minimal entry for rules without metadata, and the index of each id.
func (r *Report) ruleIndex() ([]RuleInfo, map[string]int) {
	known := map[string]RuleInfo{}
	for _, ri := range r.Rules {
		known[ri.ID] = ri
	}
	used := map[string]bool{}
	for _, f := range r.Findings() {
		used[f.Rule] = true
	}
	// Every known rule is listed (code scanning shows the rule set), then unknown used ones.
	ids := make([]string, 0, len(known)+len(used))
	for id := range known {
		ids = append(ids, id)
	}
	for id := range used {
		if _, ok := known[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	rules := make([]RuleInfo, len(ids))
	idx := make(map[string]int, len(ids))
	for i, id := range ids {
		ri, ok := known[id]
		if !ok {
			ri = RuleInfo{ID: id, Severity: SevError, Summary: id}
		}
		rules[i] = ri
		idx[id] = i
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
