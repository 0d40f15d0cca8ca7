package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// TestUnifiedTextMarksWhatChangedInALongLine: under a long changed line and its replacement,
// a "~" line shows the change with a little context, not the 600 characters again.
func TestUnifiedTextMarksWhatChangedInALongLine(t *testing.T) {
	long := func(v string) string {
		return "p_workspace_id text, p_query text DEFAULT NULL::text, p_match_count integer DEFAULT 10, p_half_life_steps double precision DEFAULT " + v + ", p_dependency_saturation double precision DEFAULT 3.0, p_include_superseded boolean DEFAULT false"
	}
	got := unifiedText(long("30.0"), long("45.0"))
	want := "~… double precision DEFAULT [-30.0-]{+45.0+}, p_dependency_saturation …\n"
	if !strings.HasSuffix(got, want) || strings.Count(got, "\n~") != 1 {
		t.Errorf("unified text:\n%s\nwant it to end with %q", got, want)
	}
	// Short lines, and lines that share little, get no marker line.
	for _, pair := range [][2]string{{"WHERE a AND b", "WHERE a OR b"}, {long("1"), strings.Repeat("x", 200)}} {
		if got := unifiedText(pair[0], pair[1]); strings.Contains(got, "\n~") {
			t.Errorf("marker line for %q:\n%s", pair, got)
		}
	}
	// The html highlights the changed characters, escaped.
	l, r := highlighted("a < 1 AND b", "a < 1 OR b")
	if l != "a &lt; 1 <del>AND</del> b" || r != "a &lt; 1 <ins>OR</ins> b" {
		t.Errorf("highlighted = %q, %q", l, r)
	}
}

// TestHTMLProbeTable: a probe's results are one column of rows that never wrap (a table that
// scrolls sideways), each changed row above its replacement, the changed values marked.
func TestHTMLProbeTable(t *testing.T) {
	r := &Report{Tool: "ledgercheck", Version: "test", LeftLabel: "artifact", RightLabel: "port", Phases: []PhaseResult{{
		Phase: finding.PhaseProbe, Name: "probes port",
		Findings: []finding.Finding{{Phase: finding.PhaseProbe, Rule: "probe-difference", Severity: finding.SevError, Message: "probe p returns different rows",
			From: "id | source | relevance   | score\n1  | cosine | 1.000000000 | 0.893783435\n2  | none   | 0.000000000 | 0.350000000\n",
			To:   "id | source | relevance   | score\n1  | cosine | 1.000000000 | 0.903390929\n2  | none   | 0.000000000 | 0.350000000\n"}},
	}}}
	r.Finish()
	var b strings.Builder
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		`<div class="scroll">` + "\n" + `<table class="sbs tabular">`,
		`<tr><td class="no">−</td><td class="del">1  | cosine | 1.000000000 | <del>0.893783435</del></td></tr>` + "\n" + `<tr><td class="no">&#43;</td><td class="add">1  | cosine | 1.000000000 | <ins>0.903390929</ins></td></tr>`,
		`<tr><td class="no"></td><td class="">2  | none   | 0.000000000 | 0.350000000</td></tr>`,
		`table.sbs.tabular td{white-space:pre;word-break:normal}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("html lacks %q:\n%s", want, got[strings.Index(got, "<tbody>"):])
		}
	}
}

// TestHTMLFindingLabels: a finding that names its two texts (a difference that changed since
// review: the port as reviewed and now) is shown under those names, not the phase's artifact and
// port, and only the changed row is marked.
func TestHTMLFindingLabels(t *testing.T) {
	r := &Report{Tool: "ledgercheck", LeftLabel: "artifact (1536)", RightLabel: "port (1024)", Phases: []PhaseResult{{
		Phase: finding.PhaseAllow, Name: "allowlist port", Status: StatusFail,
		Findings: []finding.Finding{{Phase: finding.PhaseAllow, Rule: "changed-since-review", Severity: finding.SevError,
			Message: "body of function public.f(0 args) changed since review",
			From:    "SELECT 1\nFROM t\nWHERE reviewed\n", To: "SELECT 1\nFROM t\nWHERE reviewed AND new\n",
			FromLabel: "port, reviewed", ToLabel: "port, now"}},
	}}}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, `<th colspan="2">port, reviewed</th><th colspan="2">port, now</th>`) {
		t.Errorf("the side-by-side table is not headed by the finding's labels:\n%s", out)
	}
	if strings.Contains(out, "artifact (1536)</th>") {
		t.Error("the finding's table is headed by the phase's labels")
	}
	if n := strings.Count(out, `class="del"`) + strings.Count(out, `class="add"`); n != 2 {
		t.Errorf("%d marked cells, want 2 (the one changed row, both sides)", n)
	}
}

// TestHTMLCollapsesUnchangedLines: a one-line change in a long body shows as that change with
// three lines around it, the rest counted in a hunk row, not as the whole body.
func TestHTMLCollapsesUnchangedLines(t *testing.T) {
	var a, b strings.Builder
	for i := 1; i <= 200; i++ {
		line := "  SELECT " + strconv.Itoa(i) + ";\n"
		a.WriteString(line)
		if i == 100 {
			line = "  SELECT 100 + 1;\n"
		}
		b.WriteString(line)
	}
	r := &Report{Tool: "ledgercheck", Phases: []PhaseResult{{Phase: finding.PhaseAllow, Name: "allowlist", Status: StatusFail,
		Findings: []finding.Finding{{Phase: finding.PhaseAllow, Rule: "changed-since-review", Severity: finding.SevError,
			Message: "body changed since review", From: a.String(), To: b.String()}}}}}
	var out bytes.Buffer
	if err := WriteHTML(&out, r); err != nil {
		t.Fatal(err)
	}
	html := out.String()
	if got := strings.Count(html, `<td class="no">`); got != 2*7 {
		t.Errorf("%d numbered cells, want 14: the changed row and three rows on each side", got)
	}
	for _, want := range []string{"… 96 unchanged lines", "… 97 unchanged lines", `<td class="no">97</td>`, `<td class="no">103</td>`} {
		if !strings.Contains(html, want) {
			t.Errorf("no %q in the report", want)
		}
	}
	if strings.Contains(html, `<td class="no">96</td>`) || strings.Contains(html, `<td class="no">104</td>`) {
		t.Error("rows beyond the context are shown")
	}
}
