package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
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

// WriteLintText writes lint's text format, for a person at a terminal and for the tools that
// read compiler output alike: each finding on one line, file:line:col: severity: message [rule]
// (the form editors, pre-commit and reviewdog's errorformat read), the source line it points at
// below it with a caret under the column (when [Report.Source] has the file: "  12 | ..." lines,
// which no such tool mistakes for a finding), and a last line that sums up: the findings by
// severity and how many files were checked, after the verdict as check's text report ends
// ("FAIL: 2 errors, 1 warning in 3 files", "PASS: no findings in 2 files"). With color,
// severities, carets and the verdict are colored with ANSI escapes.
func WriteLintText(w io.Writer, r *Report, color bool) error {
	p := painter(color)
	src := newSourceIndex(r)
	var b bytes.Buffer
	for _, f := range r.Findings() {
		if f.Pos.Line > 0 {
			b.WriteString(Visible(f.Pos.String()) + ": ")
		}
		fmt.Fprintf(&b, "%s: %s [%s]\n", p.severity(f.Severity), Visible(f.Message+f.ObjectSuffix()), f.Rule)
		writeExcerpt(&b, p, src.excerpt(f.Pos, 0, 0))
		if b.Len() > 64<<10 {
			if _, err := w.Write(b.Bytes()); err != nil {
				return fmt.Errorf("writing report: %w", err)
			}
			b.Reset()
		}
	}
	if len(r.Phases) > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		st := Status(strings.ToUpper(string(r.Status())))
		fmt.Fprintf(&b, "%s: %s in %s\n", p.status(st), r.Tally(), nouns.Count(len(r.Phases), "file"))
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}
