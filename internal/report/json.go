package report

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"io"
)

// The JSON document of every command that reports findings (check, lint, parity, rerun);
// docs/json-schema.md describes it field by field and testdata/golden/report.json is a sample
// pinned by a golden test.
type (
	jsonDoc struct {
		SchemaVersion int        `json:"schema_version"`
		Tool          jsonTool   `json:"tool"`
		ColumnKind    string     `json:"column_kind"`
		Status        Status     `json:"status"`
		DurationMS    int64      `json:"duration_ms"`
		Servers       []Server   `json:"servers"`
		Totals        jsonTotals `json:"totals"`
		// Sidecars are a repository's sidecars (sidecars.go); empty for a run of one.
		Sidecars []jsonSidecar `json:"sidecars"`
		Phases   []jsonPhase   `json:"phases"`
	}
	jsonTool struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	jsonTotals struct {
		Errors   int `json:"errors"`
		Warnings int `json:"warnings"`
		Infos    int `json:"infos"`
	}
	jsonPhase struct {
		Name       string            `json:"name"`
		Sidecar    string            `json:"sidecar,omitempty"`
		Phase      finding.Phase     `json:"phase"`
		File       string            `json:"file,omitempty"`
		Status     Status            `json:"status"`
		DurationMS int64             `json:"duration_ms"`
		Errors     int               `json:"errors"`
		Warnings   int               `json:"warnings"`
		Notes      []string          `json:"notes"`
		Counts     map[string]int    `json:"counts"`
		Findings   []finding.Finding `json:"findings"`
		// Locks is a locks phase's lock table (absent in every other phase).
		Locks []Lock `json:"locks,omitempty"`
		// Access is an audit phase's access matrix, and lint --install's phase's (absent from
		// every other phase).
		Access *[]Access `json:"access,omitempty"`
		// Folded is how many of the phase's findings the phase FoldedInto reports (absent: none).
		Folded     int    `json:"folded,omitempty"`
		FoldedInto string `json:"folded_into,omitempty"`
	}
)

// WriteReportJSON writes the report as one indented JSON document of schema version
// [SchemaVersion] (docs/json-schema.md). Arrays and objects are never null, durations are whole
// milliseconds and findings keep the order of the report.
func WriteReportJSON(w io.Writer, r *Report) error {
	e, wn, in := r.Totals()
	doc := jsonDoc{
		SchemaVersion: SchemaVersion,
		Tool:          jsonTool{Name: r.Tool, Version: r.Version},
		ColumnKind:    "unicodeCodePoints",
		Status:        r.Status(),
		DurationMS:    r.Duration.Milliseconds(),
		Servers:       servers(r),
		Totals:        jsonTotals{Errors: e, Warnings: wn, Infos: in},
		Sidecars:      jsonSidecars(r),
		Phases:        make([]jsonPhase, 0, len(r.Phases)),
	}
	for i := range r.Phases {
		ph := &r.Phases[i]
		jp := jsonPhase{
			Name: ph.Name, Sidecar: ph.Sidecar, Phase: ph.Phase, File: ph.File, Status: phaseStatus(ph),
			DurationMS: ph.Duration.Milliseconds(), Errors: ph.Errors(), Warnings: ph.Warnings(),
			Notes: ph.Notes, Counts: ph.Counts, Findings: ph.Findings, Locks: ph.Locks,
			Folded: ph.Folded, FoldedInto: ph.FoldedInto,
		}
		if jp.Notes == nil {
			jp.Notes = []string{}
		}
		if jp.Counts == nil {
			jp.Counts = map[string]int{}
		}
		if jp.Findings == nil {
			jp.Findings = []finding.Finding{}
		}
		if ph.Phase == finding.PhaseAudit || ph.Access != nil {
			access := ph.Access
			if access == nil {
				access = []Access{}
			}
			jp.Access = &access
		}
		doc.Phases = append(doc.Phases, jp)
	}
	return writeDocument(w, doc)
}

// servers returns the report's servers for a document: never nil, and no Ran list nil.
func servers(r *Report) []Server {
	out := make([]Server, len(r.Servers))
	for i, s := range r.Servers {
		if s.Ran == nil {
			s.Ran = []string{}
		}
		out[i] = s
	}
	return out
}
