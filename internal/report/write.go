package report

import (
	"fmt"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"io"
)

// WriteText writes findings one per line as file:line:col: severity: message [rule], the form
// editors, compilers and reviewdog's errorformat understand.
func WriteText(w io.Writer, fs []finding.Finding) error {
	for _, f := range fs {
		if _, err := fmt.Fprintln(w, Visible(f.String())); err != nil {
			return fmt.Errorf("writing report: %w", err)
		}
	}
	return nil
}
