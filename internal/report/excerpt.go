package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// maxExcerptLine is the most characters of a quoted source line: a longer one is cut to a window
// around the column, "…" marking what is left out on either side.
const maxExcerptLine = 160

// sourceIndex quotes the lines findings point at, from [Report.Source]: each file is read and its
// line starts indexed once.
type sourceIndex struct {
	get   func(file string) []byte
	files map[string]*indexedSource
}

type indexedSource struct {
	src    []byte
	starts []int // byte offset of each line's start
}

func newSourceIndex(r *Report) *sourceIndex {
	return &sourceIndex{get: r.Source, files: map[string]*indexedSource{}}
}

// line returns line n (1-based) of file without its line break, and whether there is one.
func (x *sourceIndex) line(file string, n int) (string, bool) {
	if x == nil || x.get == nil || file == "" || n < 1 {
		return "", false
	}
	s, ok := x.files[file]
	if !ok {
		s = &indexedSource{src: x.get(file)}
		if s.src != nil {
			s.starts = append(s.starts, 0)
			for i, b := range s.src {
				if b == '\n' {
					s.starts = append(s.starts, i+1)
				}
			}
		}
		x.files[file] = s
	}
	if n > len(s.starts) || s.starts[n-1] == len(s.src) && n > 1 {
		return "", false
	}
	end := len(s.src)
	if n < len(s.starts) {
		end = s.starts[n] - 1
	}
	return strings.TrimSuffix(string(s.src[s.starts[n-1]:end]), "\r"), true
}

// excerptLine is one line of an excerpt: its number, its text (made visible) and, for the
// finding's own line, the caret line under it (spaces, and tabs where the text has them, up to
// the column, then "^").
type excerptLine struct {
	No          int
	Text, Caret string
}

// excerpt returns the lines around a finding's position (before and after lines of context), the
// finding's own with its caret; nil when the finding has no position or its file's text is not at
// hand.
func (x *sourceIndex) excerpt(pos finding.Position, before, after int) []excerptLine {
	text, ok := x.line(pos.File, pos.Line)
	if !ok {
		return nil
	}
	var out []excerptLine
	for n := max(pos.Line-before, 1); n < pos.Line; n++ {
		if l, ok := x.line(pos.File, n); ok {
			out = append(out, excerptLine{No: n, Text: clipLine(l, 1)})
		}
	}
	shown, caret := caretLine(text, max(pos.Col, 1))
	out = append(out, excerptLine{No: pos.Line, Text: shown, Caret: caret})
	for n := pos.Line + 1; n <= pos.Line+after; n++ {
		if l, ok := x.line(pos.File, n); ok {
			out = append(out, excerptLine{No: n, Text: clipLine(l, 1)})
		}
	}
	return out
}

// caretLine returns the line as shown (made visible, cut around col when long) and the caret
// line that puts "^" under its col'th character.
func caretLine(line string, col int) (shown, caret string) {
	runes := []rune(line)
	col = min(col, len(runes)+1)
	from, to, lead, trail := window(len(runes), col)
	prefix := lead + Visible(string(runes[from:col-1]))
	shown = prefix + Visible(string(runes[col-1:to])) + trail
	var b strings.Builder
	for _, r := range prefix {
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	return shown, b.String() + "^"
}

// clipLine is a context line as shown: made visible, cut like the finding's own line would be
// around col.
func clipLine(line string, col int) string {
	runes := []rune(line)
	from, to, lead, trail := window(len(runes), min(col, len(runes)+1))
	return lead + Visible(string(runes[from:to])) + trail
}

// window returns the runes of a line of n runes to show around col, and the marks of what is
// left out before and after.
func window(n, col int) (from, to int, lead, trail string) {
	if n <= maxExcerptLine {
		return 0, n, "", ""
	}
	from = max(0, min(col-1-maxExcerptLine/2, n-maxExcerptLine))
	to = min(n, from+maxExcerptLine)
	if from > 0 {
		lead = "…"
	}
	if to < n {
		trail = "…"
	}
	return from, to, lead, trail
}

// writeExcerpt writes the excerpt under a finding of the lint text format: each line as
// "  NNN | text", the caret line as "      | ^" (the gutter as wide as the widest number).
func writeExcerpt(b *bytes.Buffer, p painter, lines []excerptLine) {
	width := 0
	for _, l := range lines {
		width = max(width, len(fmt.Sprint(l.No)))
	}
	for _, l := range lines {
		fmt.Fprintf(b, "  %*d | %s\n", width, l.No, l.Text)
		if l.Caret != "" {
			lead := strings.TrimSuffix(l.Caret, "^")
			fmt.Fprintf(b, "  %*s | %s%s\n", width, "", lead, p.paint(ansiBold+ansiRed, "^"))
		}
	}
}
