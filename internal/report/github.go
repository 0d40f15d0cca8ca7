package report

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"html"
	"io"
	"strings"
	"sync"
	"unicode"
)

// AnnotationCap is how many annotations of one kind (error, warning, notice) GitHub shows per
// step; it drops the rest silently.
const AnnotationCap = 10

// StepSummaryLimit is the size GitHub accepts for one step's job summary (1 MiB).
const StepSummaryLimit = 1 << 20

// escapeData escapes a workflow command's message: %, CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value: as the message, and also : and ,.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// annotationKind maps a severity to a workflow command.
func annotationKind(s finding.Severity) string {
	switch s {
	case finding.SevError:
		return "error"
	case finding.SevWarning:
		return "warning"
	}
	return "notice"
}

// WriteGitHub writes the report for a GitHub Actions log: one workflow command per finding
// (::error file=F,line=L,col=C,title=RULE::MESSAGE, ::warning, ::notice for infos), with
// property values and messages escaped as the runner expects, at most [AnnotationCap] of each
// kind as GitHub shows no more per step, then a line saying how many were left out, then the
// plain text report, which lists every finding. Locations are relative to the report's root
// (the workspace). The exit code stays the gate; annotations are only the display.
//
// The text report repeats file names, messages and diffs as they are, and the runner takes any
// line that starts with "::" (after white space), or holds "##[", for a command: a file named
// "x\n::warning::y.sql" or a function body with such a line would be one. So the text is
// written between ::stop-commands::TOKEN and ::TOKEN::, which the runner does not interpret;
// TOKEN is a digest of the text, so the text cannot end the block early.
func WriteGitHub(w io.Writer, r *Report) error {
	r = visibleReport(r)
	bw := bufio.NewWriter(w)
	shown := map[string]int{}
	left := map[string]int{}
	for i := range r.Phases {
		ph := &r.Phases[i]
		for _, f := range ph.Findings {
			kind := annotationKind(f.Severity)
			if shown[kind] >= AnnotationCap {
				left[kind]++
				continue
			}
			shown[kind]++
			var props []string
			file, line, col := location(ph, f)
			if rel, _ := RelPath(r.Root, file); rel != "" {
				props = append(props, "file="+escapeProperty(rel), fmt.Sprintf("line=%d", line))
				if f.Pos.Line > 0 {
					props = append(props, fmt.Sprintf("col=%d", col))
				}
			}
			props = append(props, "title="+escapeProperty(ph.Name+": "+f.Rule))
			fmt.Fprintf(bw, "::%s %s::%s\n", kind, strings.Join(props, ","), escapeData(findingText(f)))
		}
	}
	var parts []string
	for _, kind := range []string{"error", "warning", "notice"} {
		if left[kind] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", left[kind], kind))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(bw, "ledgercheck: %s annotations left out (GitHub shows %d of each kind per step); every finding is listed below and in the job summary\n",
			strings.Join(parts, ", "), AnnotationCap)
	}
	var text bytes.Buffer
	if err := WriteReportText(&text, r, false); err != nil {
		return err
	}
	token := stopToken(text.Bytes())
	fmt.Fprintf(bw, "::stop-commands::%s\n", token)
	bw.Write(text.Bytes())
	fmt.Fprintf(bw, "::%s::\n", token)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// stopToken returns the token that ends a ::stop-commands:: block around text: a digest of the
// text, which text therefore does not contain.
func stopToken(text []byte) string {
	sum := sha256.Sum256(text)
	return "ledgercheck-" + hex.EncodeToString(sum[:16])
}

// WriteStepSummary writes the report as GitHub-flavoured markdown for $GITHUB_STEP_SUMMARY: the
// verdict, the server it ran on, a repository's sidecar table, the phase table, each phase's
// notes and a table of its findings (under a heading per sidecar), with diffs in collapsible
// blocks. Text is escaped for markdown tables and inline HTML. Output is kept under
// [StepSummaryLimit]; findings that do not fit are counted in a closing line.
func WriteStepSummary(w io.Writer, r *Report) error {
	r = visibleReport(r)
	var b bytes.Buffer
	st := r.Status()
	fmt.Fprintf(&b, "## %s %s: %s (%s) in %s\n\n", mdCell(r.Tool), mdCell(r.Version), strings.ToUpper(string(st)), r.Tally(), FormatDuration(r.Duration))
	if sl := r.ServerLine(); sl != "" {
		fmt.Fprintf(&b, "%s\n\n", mdCell(sl))
	}
	if len(r.Sidecars) > 0 {
		b.WriteString("| sidecar | status | findings | time | needs |\n|---|---|---|---|---|\n")
		for _, row := range r.sidecarRows() {
			fmt.Fprintf(&b, "| %s | %s %s | %s | %s | %s |\n", mdCell(row[0]), statusIcon(Status(row[1])), row[1], row[2], row[3], mdCell(row[4]))
		}
		b.WriteString("\n")
	}
	b.WriteString("| phase | status | findings | time |\n|---|---|---|---|\n")
	for i := range r.Phases {
		ph := &r.Phases[i]
		fmt.Fprintf(&b, "| %s | %s %s | %s | %s |\n", mdCell(ph.Name), statusIcon(phaseStatus(ph)), phaseStatus(ph), findingsCell(ph), phaseTime(ph))
	}
	const reserve = 4 << 10 // room for the closing line
	omitted := 0
	sidecar := ""
	for i := range r.Phases {
		ph := &r.Phases[i]
		if len(ph.Findings) == 0 && len(ph.Notes) == 0 {
			continue
		}
		var sec bytes.Buffer
		if ph.Sidecar != "" && ph.Sidecar != sidecar {
			sidecar = ph.Sidecar
			fmt.Fprintf(&sec, "\n## sidecar %s\n", mdCell(sidecar))
		}
		fmt.Fprintf(&sec, "\n### %s\n\n", mdCell(ph.Name))
		for _, n := range ph.Notes {
			fmt.Fprintf(&sec, "- %s\n", mdCell(n))
		}
		if len(ph.Notes) > 0 {
			sec.WriteString("\n")
		}
		if b.Len()+sec.Len() > StepSummaryLimit-reserve {
			omitted += len(ph.Findings)
			continue
		}
		b.Write(sec.Bytes())
		if len(ph.Findings) == 0 {
			continue
		}
		b.WriteString("| severity | location | rule | message |\n|---|---|---|---|\n")
		var details bytes.Buffer
		for _, f := range ph.Findings {
			where := ""
			if f.Pos.Line > 0 {
				rel, _ := RelPath(r.Root, f.Pos.File)
				where = fmt.Sprintf("`%s:%d:%d`", mdCode(rel), f.Pos.Line, f.Pos.Col)
			}
			msg := f.Message + f.ObjectSuffix()
			row := fmt.Sprintf("| %s | %s | `%s` | %s |\n", f.Severity, where, mdCode(f.Rule), mdCell(msg))
			var det string
			if d := diffText(f); d != "" {
				fence := codeFence(d)
				det = fmt.Sprintf("<details><summary>%s %s</summary>\n\n%sdiff\n%s\n%s\n\n</details>\n\n",
					html.EscapeString(f.Rule), html.EscapeString(f.Object), fence, strings.TrimRight(d, "\n"), fence)
			}
			if b.Len()+details.Len()+len(row)+len(det) > StepSummaryLimit-reserve {
				omitted++
				continue
			}
			b.WriteString(row)
			details.WriteString(det)
		}
		if details.Len() > 0 {
			b.WriteString("\n")
			b.Write(details.Bytes())
		}
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "\n%d more findings do not fit in a job summary; run with --format json or sarif for all of them.\n", omitted)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("writing the job summary: %w", err)
	}
	return nil
}

func statusIcon(s Status) string {
	switch s {
	case StatusFail:
		return "❌"
	case StatusWarn:
		return "⚠️"
	case StatusSkip:
		return "⏭️"
	}
	return "✅"
}

// mdCell escapes text, which names and messages from the migration fill, for a markdown table
// cell or list item: every ASCII punctuation character gets a backslash (CommonMark reads any of
// them escaped as itself), so no image, link, autolink, emphasis, code span, HTML tag, entity,
// heading or table pipe can be made of it; line breaks become <br>.
func mdCell(s string) string {
	var b strings.Builder
	for _, r := range strings.ReplaceAll(s, "\r\n", "\n") {
		switch {
		case r == '\n':
			b.WriteString("<br>")
		case r < 0x80 && unicode.IsPunct(r) || r < 0x80 && unicode.IsSymbol(r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode escapes text inside a one-backtick code span in a table cell.
func mdCode(s string) string {
	s = strings.ReplaceAll(s, "`", "'")
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "\n", " ")
}

// codeFence returns a backtick fence longer than any backtick run in s (at least three).
func codeFence(s string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// CommandFilter is a writer for logs that a GitHub Actions runner reads: it passes whole lines
// to the writer beneath, except that a line the runner would take for a workflow command (one
// that starts with "::" after white space, or that holds "##[") is written with "| " before it
// and "##[" as "# #[". Like the runner, it ends a line at CR as well as LF. ledgercheck's
// progress and error lines name files, whose names may hold either. It is safe for concurrent
// use; Flush writes a last line without a line break.
type CommandFilter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// NewCommandFilter returns a CommandFilter writing to w.
func NewCommandFilter(w io.Writer) *CommandFilter { return &CommandFilter{w: w} }

// Write buffers p and writes every line it completes.
func (f *CommandFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf = append(f.buf, p...)
	i := bytes.LastIndexAny(f.buf, "\r\n")
	if i < 0 {
		return len(p), nil
	}
	err := f.emit(f.buf[:i+1])
	f.buf = append(f.buf[:0], f.buf[i+1:]...)
	return len(p), err
}

// Flush writes what is left of the last line.
func (f *CommandFilter) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.emit(f.buf)
	f.buf = f.buf[:0]
	return err
}

func (f *CommandFilter) emit(text []byte) error {
	if len(text) == 0 {
		return nil
	}
	var out bytes.Buffer
	for len(text) > 0 {
		end := len(text)
		if i := bytes.IndexAny(text, "\r\n"); i >= 0 {
			end = i + 1
		}
		line := text[:end]
		if bytes.HasPrefix(bytes.TrimLeft(line, " \t\f\v"), []byte("::")) {
			out.WriteString("| ")
		}
		out.Write(bytes.ReplaceAll(line, []byte("##["), []byte("# #[")))
		text = text[end:]
	}
	_, err := f.w.Write(out.Bytes())
	return err
}
