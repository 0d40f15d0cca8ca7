package report

import (
	"encoding/json"
	"fmt"
	"io"
	"ledgercheck/internal/finding"
)

// WriteText writes findings one per line as file:line:col: severity: message [rule], the form
// editors, compilers and reviewdog's errorformat understand.
func WriteText(w io.Writer, fs []finding.Finding) error {
	for _, f := range fs {
		if _, err := fmt.Fprintln(w, f.String()); err != nil {
			return fmt.Errorf("writing report: %w", err)
		}
	}
	return nil
}

// jsonReport is the stable JSON document: a version and the findings. Columns are Unicode code
// points, 1-based.
type jsonReport struct {
	Version    int               `json:"version"`
	ColumnKind string            `json:"column_kind"`
	Findings   []finding.Finding `json:"findings"`
}

// WriteJSON writes findings as one indented JSON document.
func WriteJSON(w io.Writer, fs []finding.Finding) error {
	if fs == nil {
		fs = []finding.Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(jsonReport{Version: 1, ColumnKind: "unicodeCodePoints", Findings: fs}); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}
