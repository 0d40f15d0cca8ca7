package report

import (
	"fmt"
	"strings"
	"time"
)

// Sidecar is one sidecar of a repository's run (a configuration of version 3): its phases are
// the report's phases whose Sidecar is its name. Every format groups the findings by sidecar:
// text, the step summary and html with a table of the sidecars (status, findings, time, needs)
// and a heading per sidecar, json with its list and each phase's sidecar, sarif with each
// result's sidecar and the list in the run's properties, github's annotations titled after it.
type Sidecar struct {
	// Name names the sidecar; File is its migration.
	Name, File string
	// Needs are the sidecars it needs directly.
	Needs []string
	// Duration is how long its check took (wall clock); 0 for a sidecar not checked.
	Duration time.Duration
}

// SidecarStatus is the status of the sidecar named name: the worst status of its phases, where
// a skipped phase counts as a pass, and skip when none of them checked anything.
func (r *Report) SidecarStatus(name string) Status {
	sub := Report{}
	for i := range r.Phases {
		if r.Phases[i].Sidecar == name {
			sub.Phases = append(sub.Phases, r.Phases[i])
		}
	}
	return sub.Status()
}

// sidecarCounts returns the sidecar's findings, its errors and its warnings.
func (r *Report) sidecarCounts(name string) (n, errors, warnings int) {
	for i := range r.Phases {
		if ph := &r.Phases[i]; ph.Sidecar == name {
			n += len(ph.Findings)
			errors += ph.Errors()
			warnings += ph.Warnings()
		}
	}
	return n, errors, warnings
}

// sidecarRows are the rows of the sidecar table: name, status, findings, time, needs.
func (r *Report) sidecarRows() [][]string {
	rows := make([][]string, 0, len(r.Sidecars))
	for _, s := range r.Sidecars {
		st := r.SidecarStatus(s.Name)
		n, e, _ := r.sidecarCounts(s.Name)
		cell := fmt.Sprint(n)
		switch {
		case n == 0 && st == StatusSkip:
			cell = "-"
		case e > 0 && e < n:
			cell = fmt.Sprintf("%d (%d errors)", n, e)
		}
		t := FormatDuration(s.Duration)
		if s.Duration == 0 {
			t = "-"
		}
		needs := strings.Join(s.Needs, ", ")
		if needs == "" {
			needs = "-"
		}
		rows = append(rows, []string{s.Name, string(st), cell, t, needs})
	}
	return rows
}

// sidecarHeader is the header of the sidecar table.
var sidecarHeader = []string{"SIDECAR", "STATUS", "FINDINGS", "TIME", "NEEDS"}

// jsonSidecar is a sidecar in the JSON document (docs/json-schema.md).
type jsonSidecar struct {
	Name       string   `json:"name"`
	File       string   `json:"file"`
	Status     Status   `json:"status"`
	DurationMS int64    `json:"duration_ms"`
	Errors     int      `json:"errors"`
	Warnings   int      `json:"warnings"`
	Needs      []string `json:"needs"`
	Phases     []string `json:"phases"`
}

// jsonSidecars are the report's sidecars for a document: never nil, no list nil.
func jsonSidecars(r *Report) []jsonSidecar {
	out := make([]jsonSidecar, 0, len(r.Sidecars))
	for _, s := range r.Sidecars {
		_, e, w := r.sidecarCounts(s.Name)
		js := jsonSidecar{Name: s.Name, File: s.File, Status: r.SidecarStatus(s.Name), DurationMS: s.Duration.Milliseconds(),
			Errors: e, Warnings: w, Needs: s.Needs, Phases: []string{}}
		if js.Needs == nil {
			js.Needs = []string{}
		}
		for i := range r.Phases {
			if r.Phases[i].Sidecar == s.Name {
				js.Phases = append(js.Phases, r.Phases[i].Name)
			}
		}
		out = append(out, js)
	}
	return out
}
