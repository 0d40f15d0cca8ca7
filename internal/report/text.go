package report

import (
	"bufio"
	"fmt"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// ANSI styles of the text format.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// painter applies ANSI styles when color is on and returns the text unchanged otherwise.
type painter bool

func (p painter) paint(style, s string) string {
	if !p || s == "" {
		return s
	}
	return style + s + ansiReset
}

func (p painter) status(s Status) string {
	switch Status(strings.ToLower(string(s))) {
	case StatusFail:
		return p.paint(ansiBold+ansiRed, string(s))
	case StatusWarn:
		return p.paint(ansiYellow, string(s))
	case StatusSkip:
		return p.paint(ansiDim, string(s))
	}
	return p.paint(ansiGreen, string(s))
}

func (p painter) severity(s finding.Severity) string {
	switch s {
	case finding.SevError:
		return p.paint(ansiBold+ansiRed, string(s))
	case finding.SevWarning:
		return p.paint(ansiYellow, string(s))
	}
	return p.paint(ansiCyan, string(s))
}

// WriteReportText writes the report for a person: a one-line verdict, the server it ran on
// ([Report.ServerLine]), for a repository's run a table of its sidecars (status, findings, time,
// needs), a summary table (phase, status, findings, time), then the findings of each phase that
// has any (under a heading per sidecar in a repository's run), with their details indented
// below them, and the phase's notes. With color, statuses, severities and diff lines
// are colored with ANSI escapes; the caller decides (a terminal, and NO_COLOR unset).
func WriteReportText(w io.Writer, r *Report, color bool) error {
	r = visibleReport(r)
	p := painter(color)
	bw := bufio.NewWriter(w)
	st := r.Status()
	fmt.Fprintf(bw, "%s %s: %s (%s) in %s\n", r.Tool, r.Version, p.status(Status(strings.ToUpper(string(st)))), r.Tally(), FormatDuration(r.Duration))
	if sl := r.ServerLine(); sl != "" {
		fmt.Fprintln(bw, sl)
	}
	fmt.Fprintln(bw)

	if len(r.Sidecars) > 0 {
		writeTextTable(bw, p, sidecarHeader, r.sidecarRows())
		fmt.Fprintln(bw)
	}
	rows := make([][]string, 0, len(r.Phases))
	for i := range r.Phases {
		ph := &r.Phases[i]
		rows = append(rows, []string{ph.Name, string(phaseStatus(ph)), findingsCell(ph), phaseTime(ph)})
	}
	writeTextTable(bw, p, []string{"PHASE", "STATUS", "FINDINGS", "TIME"}, rows)

	sidecar := ""
	for i := range r.Phases {
		ph := &r.Phases[i]
		if len(ph.Findings) == 0 && len(ph.Notes) == 0 && ph.Access == nil {
			continue
		}
		if ph.Sidecar != "" && ph.Sidecar != sidecar {
			sidecar = ph.Sidecar
			fmt.Fprintf(bw, "\n%s\n", p.paint(ansiBold, "=== sidecar "+sidecar+" ==="))
		}
		fmt.Fprintf(bw, "\n%s\n", p.paint(ansiBold, "== "+ph.Name+" =="))
		for _, n := range ph.Notes {
			fmt.Fprintf(bw, "%s %s\n", p.paint(ansiDim, "note:"), n)
		}
		writeLockTable(bw, p, ph.Locks)
		for _, f := range ph.Findings {
			writeTextFinding(bw, p, f)
		}
		writeTextMatrix(bw, p, accessMatrix(ph.Access))
	}
	fmt.Fprintf(bw, "\n%s: %s\n", p.status(Status(strings.ToUpper(string(st)))), r.Tally())
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// writeTextTable writes a table padded by hand, so that color escapes do not upset the
// alignment: the header in bold, and the second column a status.
func writeTextTable(bw io.Writer, p painter, header []string, rows [][]string) {
	widths := make([]int, len(header))
	for _, row := range append([][]string{header}, rows...) {
		for c, cell := range row {
			widths[c] = max(widths[c], utf8.RuneCountInString(cell))
		}
	}
	line := func(cells []string, style func(c int, s string) string) {
		var b strings.Builder
		for c, cell := range cells {
			pad := widths[c] - utf8.RuneCountInString(cell)
			if c == len(cells)-1 {
				pad = 0
			}
			b.WriteString(style(c, cell))
			b.WriteString(strings.Repeat(" ", pad))
			if c < len(cells)-1 {
				b.WriteString("  ")
			}
		}
		fmt.Fprintln(bw, strings.TrimRight(b.String(), " "))
	}
	line(header, func(_ int, s string) string { return p.paint(ansiBold, s) })
	for _, row := range rows {
		line(row, func(c int, s string) string {
			if c == 1 {
				return p.status(Status(s))
			}
			return s
		})
	}
}

// writeTextMatrix writes an audit phase's access matrix, column-aligned: what each persona could
// do with each object, under each privilege model.
func writeTextMatrix(w io.Writer, p painter, m *matrix) {
	if m == nil {
		return
	}
	fmt.Fprintf(w, "%s what anon and the signed-in users could do, as observed (rows read or changed of rows present):\n", p.paint(ansiDim, "access:"))
	header := []string{"OBJECT", "PERSONA", "ACTION"}
	for _, model := range m.models {
		header = append(header, strings.ToUpper(model))
	}
	rows := [][]string{header}
	for _, r := range m.rows {
		row := []string{r.object, r.persona, r.action}
		for _, c := range r.cells {
			text := c.text
			if text == "" {
				text = "-"
			}
			row = append(row, text)
		}
		rows = append(rows, row)
	}
	widths := make([]int, len(header))
	for _, row := range rows {
		for c, cell := range row {
			widths[c] = max(widths[c], utf8.RuneCountInString(cell))
		}
	}
	for i, row := range rows {
		var b strings.Builder
		for c, cell := range row {
			if i == 0 {
				b.WriteString(p.paint(ansiBold, cell))
			} else {
				b.WriteString(cell)
			}
			if c < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[c]-utf8.RuneCountInString(cell)+2))
			}
		}
		fmt.Fprintf(w, "  %s\n", strings.TrimRight(b.String(), " "))
	}
}

func writeTextFinding(w io.Writer, p painter, f finding.Finding) {
	where := ""
	if f.Pos.Line > 0 {
		where = f.Pos.String() + ": "
	}
	msg := strings.ReplaceAll(strings.TrimRight(f.Message, "\n"), "\n", "\n    ")
	fmt.Fprintf(w, "%s%s: %s%s %s\n", where, p.severity(f.Severity), msg, f.ObjectSuffix(), p.paint(ansiDim, "["+f.Rule+"]"))
	detail := diffText(f)
	if detail == "" {
		return
	}
	for _, l := range strings.Split(strings.TrimRight(detail, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			l = p.paint(ansiBold, l)
		case strings.HasPrefix(l, "@@"):
			l = p.paint(ansiCyan, l)
		case strings.HasPrefix(l, "+"):
			l = p.paint(ansiGreen, l)
		case strings.HasPrefix(l, "-"):
			l = p.paint(ansiRed, l)
		case strings.HasPrefix(l, "~") && bool(p):
			l = markDel.ReplaceAllString(markIns.ReplaceAllString(l, ansiBold+ansiGreen+"$0"+ansiReset), ansiBold+ansiRed+"$0"+ansiReset)
		}
		fmt.Fprintf(w, "    %s\n", l)
	}
}

// markDel and markIns are the change markers of a "~" line (see unifiedText).
var (
	markDel = regexp.MustCompile(`\[-.*?-\]`)
	markIns = regexp.MustCompile(`\{\+.*?\+\}`)
)

// phaseStatus is the phase's status, derived from its findings when not set.
func phaseStatus(ph *PhaseResult) Status {
	if ph.Status != "" {
		return ph.Status
	}
	return ph.derive()
}

// findingsCell is the FINDINGS column: the count, with the errors among them when some are not.
func findingsCell(ph *PhaseResult) string {
	n := len(ph.Findings)
	if n == 0 {
		if ph.Status == StatusSkip && ph.Folded == 0 {
			return "-"
		}
		return "0" + foldedSuffix(ph)
	}
	e := ph.Errors()
	if e == n || e == 0 {
		return fmt.Sprintf("%d%s", n, foldedSuffix(ph))
	}
	return fmt.Sprintf("%d (%d errors)%s", n, e, foldedSuffix(ph))
}

// phaseTime is the TIME column: "-" for a skipped phase.
func phaseTime(ph *PhaseResult) string {
	if ph.Status == StatusSkip && ph.Duration == 0 {
		return "-"
	}
	return FormatDuration(ph.Duration)
}

// FormatDuration renders d the way the reports show times: milliseconds below a second
// ("42ms"), else seconds with two decimals ("2.31s").
func FormatDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}
