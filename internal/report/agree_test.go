package report

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// everyStatus is a report with a phase in every state a run leaves one in: pass, warn, fail,
// skip, fail with its one finding folded into lint's (the audit confirming it, which lint's
// message says once), a phase with findings of its own and one folded into the install phase,
// and a derived status beside set ones.
func everyStatus() *Report {
	at := func(line int) finding.Position { return finding.Position{File: "m.sql", Line: line, Col: 1} }
	return &Report{Tool: "ledgercheck", Version: "1.2.3", Duration: time.Second, Phases: []PhaseResult{
		{Phase: finding.PhaseLint, Name: "lint artifact", File: "m.sql", Status: StatusFail, Findings: []finding.Finding{
			{Rule: "table-rls-disabled", Severity: finding.SevError, Pos: at(3), Message: "table public.notes is created without ENABLE ROW LEVEL SECURITY (the installed audit confirms it: audit artifact)"},
			{Rule: "dynamic-sql", Severity: finding.SevWarning, Pos: at(9), Message: "EXECUTE runs SQL built at run time"},
		}},
		{Phase: finding.PhaseAudit, Name: "audit artifact", File: "m.sql", Status: StatusFail, Folded: 1, FoldedInto: "lint artifact",
			Notes: []string{"failed: its rls-disabled-in-public is lint's table-rls-disabled at m.sql:3:1, reported once (lint artifact)"}},
		{Phase: finding.PhaseBodies, Name: "bodies artifact", File: "m.sql", Duration: 3 * time.Millisecond},
		{Phase: finding.PhaseLocks, Name: "locks artifact", File: "m.sql", Findings: []finding.Finding{
			{Rule: "lock-access-exclusive", Severity: finding.SevWarning, Pos: at(5), Message: "ALTER TABLE takes ACCESS EXCLUSIVE on public.thoughts"}}},
		{Phase: finding.PhaseParity, Name: "parity", Status: StatusSkip, Notes: []string{"not run: the configuration has no ports"}},
		{Phase: finding.PhaseInstall, Name: "install port", File: "p.sql", Findings: []finding.Finding{
			{Rule: "install-failed", Severity: finding.SevError, Pos: finding.Position{File: "p.sql", Line: 2, Col: 1}, Message: "the server rejected it"}}},
		{Phase: finding.PhaseRerun, Name: "rerun port", File: "p.sql", Folded: 1, FoldedInto: "install port",
			Notes: []string{"not run: p.sql does not install at p.sql:2:1 (see the phase install port)"}, Findings: []finding.Finding{
				{Rule: "upgrade-changed", Severity: finding.SevWarning, Pos: finding.Position{File: "p.sql", Line: 4, Col: 1}, Message: "the upgrade changed a row"}}},
		{Phase: finding.PhaseRerun, Name: "rerun artifact", File: "m.sql", Status: StatusSkip, Notes: []string{"rerun skipped: rerun.times 1"}},
	}}
}

// shown is what one format shows of a phase: its status and its FINDINGS cell (or the count it
// gives in words).
type shown struct{ status, count string }

// A phase's status and count agree in every format, and agree with what it holds: each format
// shows the status the report has, a count whose number is the findings it lists, and a fail or
// warn over no finding of its own only with where its findings are (never a bare 0, nor "No
// findings."); a skipped phase shows no count, its progress line no findings; the confirmation
// of lint's finding appears once per format that carries messages.
func TestEveryStatusAgreesInEveryFormat(t *testing.T) {
	r := everyStatus()
	r.Finish()
	want := map[string]*PhaseResult{}
	for i := range r.Phases {
		want[r.Phases[i].Name] = &r.Phases[i]
	}
	formats := map[string]map[string]shown{
		"text": textRows(t, r), "summary": summaryRows(t, r), "html": htmlRows(t, r), "html table": htmlTableRows(t, r),
		"json": jsonRows(t, r), "progress": progressRows(r),
		"github log": tableRows(render(t, func(b *bytes.Buffer) error { return WriteGitHub(b, r) })),
	}
	for format, rows := range formats {
		if len(rows) != len(want) {
			t.Errorf("%s shows %d phases, want %d: %v", format, len(rows), len(want), rows)
		}
		for name, got := range rows {
			ph := want[name]
			if ph == nil {
				t.Errorf("%s shows a phase %q the report does not have", format, name)
				continue
			}
			if got.status != string(ph.Status) {
				t.Errorf("%s: %s is %s, the report says %s", format, name, got.status, ph.Status)
			}
			agreeCount(t, format, ph, got.count)
		}
	}
	sarifAgrees(t, r)
	for format, out := range map[string]string{"text": render(t, func(b *bytes.Buffer) error { return WriteReportText(b, r, false) }),
		"summary": render(t, func(b *bytes.Buffer) error { return WriteStepSummary(b, r) }),
		"html":    render(t, func(b *bytes.Buffer) error { return WriteHTML(b, r) }),
		"json":    render(t, func(b *bytes.Buffer) error { return WriteReportJSON(b, r) }),
		"sarif":   render(t, func(b *bytes.Buffer) error { return WriteSARIF(b, r) }),
		"github":  render(t, func(b *bytes.Buffer) error { return WriteGitHub(b, r) }),
	} {
		if format == "github" { // the annotations, before the log (the text report, checked as text)
			out = strings.Join(regexp.MustCompile(`(?m)^::(error|warning|notice) .*$`).FindAllString(out, -1), "\n")
		}
		if n := strings.Count(out, "the installed audit confirms it"); n != 1 {
			t.Errorf("%s says %d times that the audit confirms lint's finding, want once", format, n)
		}
	}
}

// agreeCount checks the count a format shows of ph.
func agreeCount(t *testing.T, format string, ph *PhaseResult, count string) {
	t.Helper()
	n := len(ph.Findings)
	if ph.Status == StatusSkip && n == 0 {
		if count != "-" {
			t.Errorf("%s: skipped %s counts %q, want -", format, ph.Name, count)
		}
		return
	}
	lead := regexp.MustCompile(`^\d+`).FindString(count)
	if lead != strconv.Itoa(n) {
		t.Errorf("%s: %s counts %q, but it lists %d findings", format, ph.Name, count, n)
	}
	folded := "+" + strconv.Itoa(ph.Folded) + " in " + ph.FoldedInto
	switch {
	case ph.Folded > 0 && !strings.Contains(count, folded):
		t.Errorf("%s: %s counts %q, without the %d finding(s) %s reports for it (%q)", format, ph.Name, count, ph.Folded, ph.FoldedInto, folded)
	case ph.Folded == 0 && strings.Contains(count, "+"):
		t.Errorf("%s: %s counts %q, but nothing of it is folded", format, ph.Name, count)
	}
	if (ph.Status == StatusFail || ph.Status == StatusWarn) && n == 0 && ph.Folded == 0 {
		t.Errorf("the report has %s %s with nothing it failed on", ph.Name, ph.Status)
	}
}

func render(t *testing.T, write func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// textRows reads the text report's phase table.
func textRows(t *testing.T, r *Report) map[string]shown {
	return tableRows(render(t, func(b *bytes.Buffer) error { return WriteReportText(b, r, false) }))
}

// tableRows reads the phase table of a text report (or of github's log, which is one).
func tableRows(text string) map[string]shown {
	out := map[string]shown{}
	lines := strings.Split(text, "\n")
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "PHASE "):
			in = true
		case in && l == "":
			return out
		case in:
			c := regexp.MustCompile(`\s{2,}`).Split(l, -1)
			out[c[0]] = shown{c[1], c[2]}
		}
	}
	return out
}

// summaryRows reads the job summary's phase table.
func summaryRows(t *testing.T, r *Report) map[string]shown {
	out := map[string]shown{}
	md := render(t, func(b *bytes.Buffer) error { return WriteStepSummary(b, r) })
	_, table, _ := strings.Cut(md, "| phase | status | findings | time |\n|---|---|---|---|\n")
	table, _, _ = strings.Cut(table, "\n\n")
	for _, l := range strings.Split(table, "\n") {
		c := strings.Split(l, " | ")
		if len(c) != 4 {
			t.Errorf("summary: %q is no row of the phase table", l)
			continue
		}
		st := strings.Fields(c[1])
		out[strings.TrimPrefix(c[0], "| ")] = shown{st[len(st)-1], c[2]}
	}
	return out
}

// htmlRows reads each phase's section of the html: the status of its heading, and the
// findings it lists, with what stands where it lists none.
func htmlRows(t *testing.T, r *Report) map[string]shown {
	out := map[string]shown{}
	page := render(t, func(b *bytes.Buffer) error { return WriteHTML(b, r) })
	heading := regexp.MustCompile(`^id="phase-(\d+)">\n<h2>([^<]+) <span class="badge st-(\w+)">`)
	for _, sec := range strings.Split(page, "<section ")[1:] {
		m := heading.FindStringSubmatch(sec)
		if m == nil {
			continue
		}
		ph := &r.Phases[atoi(t, m[1])-1]
		n := strings.Count(sec, `<div class="finding `)
		count := strconv.Itoa(n) + foldedSuffix(ph) // a section lists its own findings; its notes say what is folded
		switch fold := regexp.MustCompile(`its (\d+) findings? reported once, in ([^.<]+)\.`).FindStringSubmatch(sec); {
		case n > 0:
		case fold != nil:
			count = "0 (+" + fold[1] + " in " + fold[2] + ")"
		case strings.Contains(sec, "<p>No findings.</p>") && m[3] == "skip":
			count = "-"
		case strings.Contains(sec, "<p>No findings.</p>"):
			count = "0"
		default:
			t.Errorf("html: %s lists no finding and does not say so", m[2])
		}
		out[m[2]] = shown{m[3], count}
	}
	return out
}

// htmlTableRows reads the html's phase table.
func htmlTableRows(t *testing.T, r *Report) map[string]shown {
	out := map[string]shown{}
	page := render(t, func(b *bytes.Buffer) error { return WriteHTML(b, r) })
	row := regexp.MustCompile(`<tr><td><a href="#phase-\d+">([^<]+)</a></td><td><span class="badge st-(\w+)">\w+</span></td><td class="num">([^<]*)</td>`)
	for _, c := range row.FindAllStringSubmatch(page, -1) {
		out[c[1]] = shown{c[2], html.UnescapeString(c[3])}
	}
	return out
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// jsonRows reads the JSON document's phases, their count as a table would show it.
func jsonRows(t *testing.T, r *Report) map[string]shown {
	var doc struct {
		Phases []struct {
			Name, Status, FoldedInto string
			Folded                   int
			Errors                   int
			Findings                 []json.RawMessage
		}
	}
	doc.Phases = nil
	raw := render(t, func(b *bytes.Buffer) error { return WriteReportJSON(b, r) })
	if err := json.Unmarshal([]byte(strings.ReplaceAll(raw, `"folded_into"`, `"foldedinto"`)), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]shown{}
	for _, p := range doc.Phases {
		count := strconv.Itoa(len(p.Findings))
		if p.Status == "skip" && len(p.Findings) == 0 {
			count = "-"
		}
		if p.Folded > 0 {
			count += " (+" + strconv.Itoa(p.Folded) + " in " + p.FoldedInto + ")"
		}
		out[p.Name] = shown{p.Status, count}
	}
	return out
}

// progressRows reads the progress lines of the phases: "NAME: STATUS[, N findings ... in T]".
func progressRows(r *Report) map[string]shown {
	out := map[string]shown{}
	for i := range r.Phases {
		line := ProgressLine(&r.Phases[i])
		name, rest, _ := strings.Cut(line, ": ")
		st, count, ok := strings.Cut(rest, ", ")
		if !ok {
			count = "-"
		}
		count, _, _ = strings.Cut(count, " in "+phaseTime(&r.Phases[i]))
		count = regexp.MustCompile(`^(\d+) findings?`).ReplaceAllString(count, "$1")
		out[name] = shown{st, count}
	}
	return out
}

// sarifAgrees checks SARIF, which has results and skipped phases but no phase table: every
// finding is one result, and the phases it calls skipped are the skipped ones.
func sarifAgrees(t *testing.T, r *Report) {
	t.Helper()
	var log struct {
		Runs []struct {
			Results    []json.RawMessage
			Properties struct{ Skipped []struct{ Phase string } }
		}
	}
	if err := json.Unmarshal([]byte(render(t, func(b *bytes.Buffer) error { return WriteSARIF(b, r) })), &log); err != nil {
		t.Fatal(err)
	}
	total := 0
	var skipped []string
	for i := range r.Phases {
		total += len(r.Phases[i].Findings)
		if r.Phases[i].Status == StatusSkip {
			skipped = append(skipped, r.Phases[i].Name)
		}
	}
	var got []string
	for _, s := range log.Runs[0].Properties.Skipped {
		got = append(got, s.Phase)
	}
	if len(log.Runs[0].Results) != total || strings.Join(got, ",") != strings.Join(skipped, ",") {
		t.Errorf("sarif: %d results and skipped %v; the report has %d findings and skipped %v", len(log.Runs[0].Results), got, total, skipped)
	}
}
