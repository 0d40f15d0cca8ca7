package report

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// CommandFilter marks every line a GitHub runner would take for a command, whatever the line
// break (LF or CR) and however the writes split the lines, and leaves other lines alone.
func TestCommandFilter(t *testing.T) {
	var b bytes.Buffer
	f := NewCommandFilter(&b)
	for _, w := range []string{"linting x\n::warn", "ing::pwned.sql\n", "  ::error::y\rz ##[error]w\n", "last ::x"} {
		f.Write([]byte(w))
	}
	if got := b.String(); got != "linting x\n| ::warning::pwned.sql\n|   ::error::y\rz # #[error]w\n" {
		t.Errorf("before Flush: %q", got)
	}
	f.Flush()
	if got, want := b.String()[b.Len()-len("last ::x"):], "last ::x"; got != want {
		t.Errorf("Flush wrote %q, want %q", got, want)
	}
}

// Names and messages come from the migration: in the job summary, as GitHub renders it (GitHub
// Flavored Markdown, here goldmark's), none of them makes an image, a link, an autolink, emphasis,
// strike-through, a code span, an HTML tag or another table cell; each reads as written.
func TestStepSummaryRendersNamesAsText(t *testing.T) {
	hostile := []string{
		"![PASS](https://x.example/badge.svg)",
		"[all checks passed](https://x.example/)",
		"https://x.example/auto and www.x.example",
		"*emphasis* __strong__ ~~struck~~ `code`",
		`<img src="x.svg"> <a href="https://x.example/">here</a> &amp; &#33;`,
		"| a pipe | a cell |",
	}
	name := strings.Join(hostile, " ")
	r := &Report{Tool: "ledgercheck", Version: "1.2.3", Phases: []PhaseResult{{
		Phase: finding.PhaseLint, Name: "lint " + name, Notes: []string{name},
		Findings: []finding.Finding{{Phase: finding.PhaseLint, Rule: "destructive-statement", Severity: finding.SevError,
			Pos: finding.Position{File: "m.sql", Line: 1, Col: 1}, Message: "DELETE of " + name, Object: "table public." + name}},
	}}}
	var md bytes.Buffer
	if err := WriteStepSummary(&md, r); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(md.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	rendered := out.String()
	for _, tag := range []string{"<img", "<a ", "<em>", "<strong>", "<del>", "<code>" + "code"} {
		if strings.Contains(rendered, tag) {
			t.Errorf("the rendered summary has %s:\n%s", tag, rendered)
		}
	}
	text := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(rendered, ""))
	for _, h := range hostile {
		if n := strings.Count(text, h); n < 4 { // heading, phase table, note, finding
			t.Errorf("%q reads as written %d times in the rendered summary, want 4 (heading, phase row, note, finding):\n%s", h, n, rendered)
		}
	}
	for _, row := range regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(rendered, -1) {
		if n := strings.Count(row, "<td"); n != 0 && n != 4 {
			t.Errorf("a table row of %d cells, want 4: %s", n, row)
		}
	}
}
