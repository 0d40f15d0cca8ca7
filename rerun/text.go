package rerun

import (
	"fmt"
	"io"
	"strings"

	"ledgercheck/report"
)

// WriteText writes r as the text report: each finding as one line (file:line:col: severity:
// message (object) [rule]) followed by its detail indented by four spaces (a unified diff of a
// changed value, the facts of a stale object), then the summary lines.
func WriteText(w io.Writer, r *Result) error {
	for _, f := range r.Findings {
		if err := report.WriteText(w, []report.Finding{f}); err != nil {
			return err
		}
		if f.Detail == "" {
			continue
		}
		for _, l := range strings.Split(f.Detail, "\n") {
			if _, err := fmt.Fprintln(w, strings.TrimRight("    "+l, " ")); err != nil {
				return fmt.Errorf("writing report: %w", err)
			}
		}
	}
	for _, s := range r.Summary {
		if _, err := fmt.Fprintln(w, s); err != nil {
			return fmt.Errorf("writing report: %w", err)
		}
	}
	return nil
}
