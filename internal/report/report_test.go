package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	goldenfile "github.com/ledgercheck/ledgercheck/internal/golden"
	"github.com/ledgercheck/ledgercheck/internal/rule"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// sample is a small fixed report that exercises every part of every format: positioned and
// unpositioned findings, a textual difference with both sides (under the phase's names, or the
// finding's own: a change since review), a unified diff, notes, counts,
// a skipped phase, an audit phase's access matrix, and text that needs escaping in each format.
func sample() *Report {
	return &Report{
		Tool: "ledgercheck", Version: "1.2.3", Duration: 2310 * time.Millisecond,
		LeftLabel: "artifact (1536)", RightLabel: "port (1024)",
		Servers: []Server{{Version: "17.10", Kind: "embedded", Ran: []string{"artifact", "port"}}},
		Phases: []PhaseResult{
			{Phase: finding.PhaseLint, Name: "lint artifact", File: "migrations/a.sql", Duration: 12 * time.Millisecond, Findings: []finding.Finding{
				{Phase: finding.PhaseLint, Rule: "dynamic-sql", Severity: finding.SevWarning, Pos: finding.Position{File: "migrations/a.sql", Line: 269, Col: 5},
					Message: "EXECUTE runs SQL built at run time: format('DROP FUNCTION %s', v_fn)"},
			}},
			{Phase: finding.PhaseLint, Name: "lint port", File: "migrations/p.sql", Duration: 11 * time.Millisecond, Findings: []finding.Finding{
				{Phase: finding.PhaseLint, Rule: "modifies-existing-object", Severity: finding.SevError, Pos: finding.Position{File: "migrations/p.sql", Line: 7, Col: 13},
					Message: "ALTER TABLE changes table public.thoughts, which this file did not create: alter, <AddColumn>\nsecond line | with a pipe", Object: "table public.thoughts"},
			}},
			{Phase: finding.PhaseParity, Name: "parity", File: "migrations/p.sql", Duration: 1450 * time.Millisecond,
				Notes:  []string{"3 dimension normalizations: vector(1536) -> vector(1024)", "12 differences allowlisted, 1 cosmetic"},
				Counts: map[string]int{"allowlisted": 12, "cosmetic": 1, "normalized": 3},
				Findings: []finding.Finding{
					{Phase: finding.PhaseParity, Rule: "unreviewed-difference", Severity: finding.SevError, Object: "function public.match_decision_ledger(text)",
						Message: "body differs", From: "SELECT 1\nFROM t\nWHERE a AND b\nORDER BY 1", To: "SELECT 1\nFROM t\nWHERE a OR b\nORDER BY 1\nLIMIT 5"},
					{Phase: finding.PhaseParity, Rule: "unreviewed-difference", Severity: finding.SevError, Object: "view public.stats",
						Message: "definition differs", From: "SELECT count(*)\nFROM a", To: "SELECT count(*)\nFROM b"},
				}},
			{Phase: finding.PhaseAllow, Name: "allowlist", File: "allowlist.yaml", Duration: 1 * time.Millisecond, Findings: []finding.Finding{
				{Phase: finding.PhaseAllow, Rule: "stale-allowlist-entry", Severity: finding.SevError, Pos: finding.Position{File: "allowlist.yaml", Line: 14, Col: 3},
					Message: "entry matches no difference: 100% stale, key: a,b"},
				{Phase: finding.PhaseAllow, Rule: "changed-since-review", Severity: finding.SevError, Pos: finding.Position{File: "allowlist.yaml", Line: 30, Col: 1},
					Object: "function public.match_thoughts(0 args)", Message: "body of function public.match_thoughts(0 args) changed since review: the port's value is not the reviewed one (below, as reviewed and now)",
					From: "SELECT 1\nFROM t\nWHERE reviewed\nLIMIT 65", To: "SELECT 1\nFROM t\nWHERE reviewed\nLIMIT 33", FromLabel: "port, reviewed", ToLabel: "port, now"},
			}},
			{Phase: finding.PhaseLocks, Name: "locks artifact", File: "migrations/a.sql", Duration: 3 * time.Millisecond,
				Notes:  []string{"the locks each statement took on tables that existed before the file, read from pg_locks after it (install, run 2), graded by production's sizes from table_stats.json (212 tables)"},
				Counts: map[string]int{"locks": 2, "runs": 2, "write_blocking": 2},
				Findings: []finding.Finding{
					{Phase: finding.PhaseLocks, Rule: "lock-blocks-writes", Severity: finding.SevWarning, Pos: finding.Position{File: "migrations/a.sql", Line: 58, Col: 1}, Object: "table public.agent_memories",
						Message: "CREATE TABLE takes SHARE ROW EXCLUSIVE on table public.agent_memories: it blocks INSERT, UPDATE and DELETE on public.agent_memories until the transaction ends (2.1 M rows, 3.4 GB in production (large))"},
				},
				Locks: []Lock{
					{Run: "install", Pos: finding.Position{File: "migrations/a.sql", Line: 58, Col: 1}, Statement: "CREATE TABLE", Relation: "public.agent_memories", Mode: "SHARE ROW EXCLUSIVE",
						Blocks: "INSERT, UPDATE and DELETE", Duration: 4210 * time.Microsecond, Held: 58 * time.Millisecond, Rows: 2_100_000, Bytes: 3_650_722_201, Source: "production", Grade: "large"},
					{Run: "run 2", Pos: finding.Position{File: "migrations/a.sql", Line: 171, Col: 1}, Statement: "DROP TRIGGER", Relation: "public.agent_memories", Mode: "ACCESS EXCLUSIVE",
						Blocks: "every read and write (SELECT, INSERT, UPDATE, DELETE)", Duration: 310 * time.Microsecond, Held: 1240 * time.Millisecond, Rows: 2_100_000, Bytes: 3_650_722_201,
						Source: "production", Grade: "large", Accepted: "ledgercheck.yaml:175"},
				}},
			{Phase: finding.PhaseRerun, Name: "rerun artifact", File: "migrations/a.sql", Status: StatusSkip, Notes: []string{"skipped: the install failed"}},
			{Phase: finding.PhaseInstall, Name: "install port", File: "migrations/p.sql", Duration: 420 * time.Millisecond},
			{Phase: finding.PhaseAudit, Name: "audit artifact", File: "migrations/a.sql", Duration: 85 * time.Millisecond,
				Notes: []string{"observed: 7 requests as anon and signed-in users A and B"},
				Findings: []finding.Finding{
					{Phase: finding.PhaseAudit, Rule: "anon-reads-rows", Severity: finding.SevError, Pos: finding.Position{File: "migrations/a.sql", Line: 40, Col: 1},
						Object: "table public.notes", Message: "anon can read 4 of 4 rows of table public.notes", Detail: "policy notes_read: USING (NOT false)",
						Models: []string{"old-defaults"}},
				},
				Access: []Access{
					{Model: "new-defaults", Object: "table public.notes", Persona: "anon", Action: "select", Allowed: true, Present: 4},
					{Model: "old-defaults", Object: "table public.notes", Persona: "anon", Action: "select", Allowed: true, Rows: 4, Present: 4},
					{Model: "old-defaults", Object: "table public.notes", Persona: "user A", Action: "select", Allowed: true, Rows: 4, Present: 4, Own: ptr(1), Others: ptr(3)},
					{Model: "old-defaults", Object: "table public.notes", Persona: "anon", Action: "insert", Error: "new row violates row-level security policy for table \"notes\"", Present: 4},
					{Model: "old-defaults", Object: "table public.inbox", Persona: "anon", Action: "insert", Allowed: true, Rows: 1, Present: 4,
						SideEffects: []SideEffect{{Table: "private.audit", Inserted: 1, Unwritable: true}}},
					{Model: "old-defaults", Object: "table public.inbox", Persona: "anon", Action: "insert", Allowed: true, Rows: 1, Present: 4,
						Value: "x'||pg_catalog.set_config('ledgercheck.injected','a quoted literal',true)||'", RanSQL: "a quoted literal"},
					{Model: "new-defaults", Object: "function public.lookup(uuid)", Persona: "user A", Action: "execute", Allowed: true, Rows: 2, Present: -1,
						SideEffects: []SideEffect{{Table: "public.profiles", Read: 3}}},
				}},
		},
	}
}

// The rules of the sample, registered in this test binary's catalog with their pages (the
// packages that register them are not imported by report). report.sarif carries their pages as
// help: an edit of one of these pages is accepted with -update here.
var _ = func() bool {
	for _, r := range []rule.Rule{
		{ID: "dynamic-sql", Phase: finding.PhaseLint, Severity: finding.SevWarning},
		{ID: "modifies-existing-object", Phase: finding.PhaseLint, Severity: finding.SevError},
		{ID: "unreviewed-difference", Phase: finding.PhaseParity, Severity: finding.SevError},
		{ID: "stale-allowlist-entry", Phase: finding.PhaseAllow, Severity: finding.SevError},
		{ID: "changed-since-review", Phase: finding.PhaseAllow, Severity: finding.SevError},
		{ID: "table-rls-disabled", Phase: finding.PhaseLint, Severity: finding.SevError},
		{ID: "lock-blocks-writes", Phase: finding.PhaseLocks, Severity: finding.SevWarning},
		{ID: "anon-reads-rows", Phase: finding.PhaseAudit, Severity: finding.SevError},
	} {
		rule.Register(r)
	}
	return true
}()

func ptr(n int64) *int64 { return &n }

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got)
}

func TestGoldens(t *testing.T) { checkGoldens(t, "report", sample, true) }

// checkGoldens writes the report sample makes in every format and compares each with its golden
// testdata/golden/NAME.FORMAT (the colour text too when color).
func checkGoldens(t *testing.T, name string, sample func() *Report, color bool) {
	t.Helper()
	for _, tc := range []struct {
		suffix string
		write  func(io.Writer, *Report) error
	}{
		{".txt", func(w io.Writer, r *Report) error { return WriteReportText(w, r, false) }},
		{".color.txt", func(w io.Writer, r *Report) error { return WriteReportText(w, r, true) }},
		{".json", WriteReportJSON},
		{".sarif", WriteSARIF},
		{".github.txt", WriteGitHub},
		{".summary.md", WriteStepSummary},
		{".html", WriteHTML},
	} {
		if tc.suffix == ".color.txt" && !color {
			continue
		}
		t.Run(name+tc.suffix, func(t *testing.T) {
			r := sample()
			r.Finish()
			var b bytes.Buffer
			if err := tc.write(&b, r); err != nil {
				t.Fatal(err)
			}
			golden(t, name+tc.suffix, b.Bytes())
		})
	}
}

func TestStatus(t *testing.T) {
	r := sample()
	r.Finish()
	if r.Status() != StatusFail || !r.Failed() {
		t.Errorf("status %s, want fail", r.Status())
	}
	if got := r.Phases[0].Status; got != StatusWarn {
		t.Errorf("a phase with only a warning: %s, want warn", got)
	}
	if got := r.Phases[5].Status; got != StatusSkip {
		t.Errorf("a skipped phase lost its status: %s", got)
	}
	ok := &Report{Phases: []PhaseResult{{Name: "a"}, {Name: "b", Status: StatusSkip}}}
	ok.Finish()
	if ok.Status() != StatusPass || ok.Failed() {
		t.Errorf("no findings: status %s, want pass", ok.Status())
	}
	e, w, i := r.Totals()
	if e != 6 || w != 2 || i != 0 { // the sample's errors: lint, two parity, stale and changed since review, audit
		t.Errorf("totals %d/%d/%d, want 6/2/0", e, w, i)
	}
}

// TestTextPlainHasNoEscapes checks that plain text has no ANSI escape and colored text has.
func TestTextPlainHasNoEscapes(t *testing.T) {
	var plain, color bytes.Buffer
	WriteReportText(&plain, sample(), false)
	WriteReportText(&color, sample(), true)
	if strings.Contains(plain.String(), "\x1b[") {
		t.Error("plain text contains ANSI escapes")
	}
	if !strings.Contains(color.String(), "\x1b[31m") {
		t.Error("colored text has no red")
	}
	// Columns line up in both: the TIME header starts at the same rune offset as each time.
	for _, s := range []string{plain.String(), regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(color.String(), "")} {
		lines := strings.Split(s, "\n")
		h := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "PHASE") })
		col := strings.Index(lines[h], "TIME")
		for _, l := range lines[h+1 : h+7] {
			if len(l) < col || l[col-2:col] != "  " || l[col] == ' ' {
				t.Errorf("summary row not aligned with TIME at %d: %q", col, l)
			}
		}
	}
}

func TestJSONShape(t *testing.T) {
	var b bytes.Buffer
	if err := WriteReportJSON(&b, &Report{Tool: "ledgercheck", Version: "x", Phases: []PhaseResult{{Name: "lint", Phase: finding.PhaseLint}}}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["schema_version"] != float64(SchemaVersion) || doc["status"] != "pass" {
		t.Errorf("schema_version/status: %v/%v", doc["schema_version"], doc["status"])
	}
	ph := doc["phases"].([]any)[0].(map[string]any)
	for _, k := range []string{"findings", "notes", "counts"} {
		if ph[k] == nil {
			t.Errorf("phase %s is null; arrays and objects are never null", k)
		}
	}
}

// TestGitHubEscaping checks the workflow-command escaping on hostile text.
func TestGitHubEscaping(t *testing.T) {
	if got, want := escapeProperty("a%b\r\nc:d,e"), "a%25b%0D%0Ac%3Ad%2Ce"; got != want {
		t.Errorf("escapeProperty: %q, want %q", got, want)
	}
	if got, want := escapeData("a%b\r\nc:d,e"), "a%25b%0D%0Ac:d,e"; got != want {
		t.Errorf("escapeData: %q, want %q", got, want)
	}
	r := &Report{Tool: "ledgercheck", Version: "x", Phases: []PhaseResult{{Name: "lint: a,b", Findings: []finding.Finding{{
		Rule: "r", Severity: finding.SevError, Pos: finding.Position{File: "dir,x/a:b.sql", Line: 2, Col: 3}, Message: "50% of\nthe rows: a, b",
	}}}}}
	var b bytes.Buffer
	if err := WriteGitHub(&b, r); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(b.String(), "\n", 2)[0]
	want := "::error file=dir%2Cx/a%3Ab.sql,line=2,col=3,title=lint%3A a%2Cb%3A r::50%25 of%0Athe rows: a, b"
	if first != want {
		t.Errorf("annotation\n got %q\nwant %q", first, want)
	}
}

// TestGitHubCap checks that at most ten annotations of each kind are written and that the
// rest are counted, while the text below still lists every finding.
func TestGitHubCap(t *testing.T) {
	ph := PhaseResult{Name: "lint", File: "a.sql"}
	for i := 0; i < 13; i++ {
		ph.Findings = append(ph.Findings, finding.Finding{Rule: "e", Severity: finding.SevError, Message: "err"})
	}
	for i := 0; i < 4; i++ {
		ph.Findings = append(ph.Findings, finding.Finding{Rule: "w", Severity: finding.SevWarning, Message: "warn"})
	}
	var b bytes.Buffer
	if err := WriteGitHub(&b, &Report{Tool: "ledgercheck", Phases: []PhaseResult{ph}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "::error "); n != AnnotationCap {
		t.Errorf("%d error annotations, want %d", n, AnnotationCap)
	}
	if n := strings.Count(out, "::warning "); n != 4 {
		t.Errorf("%d warning annotations, want 4", n)
	}
	if !strings.Contains(out, "3 error annotations left out") {
		t.Errorf("no count of what was left out:\n%s", out)
	}
	if n := strings.Count(out, "error: err [e]"); n != 13 {
		t.Errorf("the text below lists %d of 13 errors", n)
	}
}

// TestStepSummaryLimit checks that a huge report stays under GitHub's job summary limit and
// says how many findings were left out.
func TestStepSummaryLimit(t *testing.T) {
	ph := PhaseResult{Name: "lint"}
	for i := 0; i < 20000; i++ {
		ph.Findings = append(ph.Findings, finding.Finding{Rule: "r", Severity: finding.SevError, Message: strings.Repeat("x", 100)})
	}
	var b bytes.Buffer
	if err := WriteStepSummary(&b, &Report{Tool: "ledgercheck", Phases: []PhaseResult{ph}}); err != nil {
		t.Fatal(err)
	}
	if b.Len() > StepSummaryLimit {
		t.Errorf("summary is %d bytes, over %d", b.Len(), StepSummaryLimit)
	}
	if !regexp.MustCompile(`\n\d+ more findings do not fit`).MatchString(b.String()) {
		t.Error("the summary does not say findings were left out")
	}
}

// TestHTMLEscapesAndParses checks that hostile text is escaped and that the page is
// well-formed: it parses as XML with HTML entities, has no script and no external asset.
func TestHTMLEscapesAndParses(t *testing.T) {
	r := sample()
	r.Phases[1].Findings[0].Message = `<script>alert("x")</script> & </div>`
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script") {
		t.Error("a message's <script> reached the page unescaped")
	}
	for _, bad := range []string{"src=", "<link", "http://", "https://", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page refers to an external asset (%q)", bad)
		}
	}
	text := parseHTML(t, page)
	for _, f := range r.Findings() {
		if !strings.Contains(text, f.Message) {
			t.Errorf("finding %q is not on the page", f.Message)
		}
	}
	// The side-by-side diff puts both versions of the changed line in the page.
	for _, s := range []string{"WHERE a AND b", "WHERE a OR b", "LIMIT 5", "FROM a", "FROM b"} {
		if !strings.Contains(text, s) {
			t.Errorf("side-by-side diff lacks %q", s)
		}
	}
}

// parseHTML parses page as XML (HTML entities allowed) and returns its character data.
func parseHTML(t *testing.T, page string) string {
	t.Helper()
	page = strings.TrimPrefix(page, "<!DOCTYPE html>\n")
	d := xml.NewDecoder(strings.NewReader(page))
	d.Entity = xml.HTMLEntity
	var text strings.Builder
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the page is not well-formed: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			text.Write(tk)
		}
	}
	if depth != 0 {
		t.Fatalf("unbalanced elements (depth %d at the end)", depth)
	}
	return text.String()
}

func TestSideBySide(t *testing.T) {
	rows := sideBySideTexts("a\nb\nc\n", "a\nB\nc\nd\n")
	var got []string
	for _, r := range rows {
		got = append(got, r.Kind+":"+r.Left+"|"+r.Right)
	}
	want := "eq:a|a chg:b|B eq:c|c add:|d"
	if strings.Join(got, " ") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, " "), want)
	}
	// A detail is text: a finding without its two texts has no rows, even when its detail
	// reads like a diff (it is never parsed back).
	if rows := sideBySide(finding.Finding{Detail: "--- a\n+++ b\n@@ -10,3 +10,2 @@\n x\n-y\n+Y\n"}); rows != nil {
		t.Errorf("rows from a detail: %+v", rows)
	}
}

func TestRelPathAndURI(t *testing.T) {
	wd, _ := os.Getwd()
	root := filepath.Dir(wd)
	if got, in := RelPath(root, "x.sql"); got != "report/x.sql" || !in {
		t.Errorf("RelPath: %q %v", got, in)
	}
	if got, base := sarifURI(root, "my dir/a b.sql"); got != "report/my%20dir/a%20b.sql" || base != "%SRCROOT%" {
		t.Errorf("sarifURI: %q %q", got, base)
	}
	if got, base := sarifURI(wd, filepath.Join(root, "x.sql")); got != "../x.sql" || base != "%SRCROOT%" {
		t.Errorf("sarifURI outside the root: %q %q", got, base)
	}
}

// A report none of whose phases checked anything is skipped, never passed, in every format.
func TestNothingCheckedIsSkippedNotPassed(t *testing.T) {
	r := &Report{Tool: "ledgercheck", Version: "t", Phases: []PhaseResult{
		{Phase: finding.PhaseProbe, Name: "probes port", Status: StatusSkip, Notes: []string{"not run: the configuration has no probes"}},
	}}
	r.Finish()
	if r.Status() != StatusSkip || r.Failed() {
		t.Fatalf("status %s (failed %v), want skip and not failed", r.Status(), r.Failed())
	}
	if (&Report{}).Status() != StatusSkip {
		t.Error("a report with no phase passes")
	}
	r.Phases = append(r.Phases, PhaseResult{Phase: finding.PhaseLint, Name: "lint artifact"})
	r.Finish()
	if r.Status() != StatusPass || r.Tally() != "no findings, 1 phase skipped" {
		t.Errorf("with a phase that ran: %s (%s), want pass (no findings, 1 phase skipped)", r.Status(), r.Tally())
	}
	r.Phases = r.Phases[:1]
	for name, write := range map[string]func(io.Writer, *Report) error{
		"text": func(w io.Writer, r *Report) error { return WriteReportText(w, r, false) }, "json": WriteReportJSON,
		"sarif": WriteSARIF, "html": WriteHTML, "summary": WriteStepSummary, "github": WriteGitHub,
	} {
		var b bytes.Buffer
		if err := write(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Contains(strings.ToLower(out), `"status": "pass"`) || strings.Contains(out, "PASS") || !strings.Contains(out, "the configuration has no probes") {
			t.Errorf("%s: says pass, or not why the phase was skipped:\n%s", name, out)
		}
	}
}

// repositorySample is a repository's run of three sidecars: people passes, thought-people fails
// (a finding in its lint and one in its install), and tag-people, which needs it, was not
// checked.
func repositorySample() *Report {
	return &Report{
		Tool: "ledgercheck", Version: "1.2.3", Duration: 4100 * time.Millisecond,
		Servers: []Server{{Version: "15.14", Kind: "embedded", Ran: []string{"people", "thought-people"}}},
		Sidecars: []Sidecar{
			{Name: "people", File: "schemas/people/schema.sql", Duration: 1210 * time.Millisecond},
			{Name: "thought-people", File: "schemas/thought-people/schema.sql", Needs: []string{"people"}, Duration: 980 * time.Millisecond},
			{Name: "tag-people", File: "recipes/tag-people/view.sql", Needs: []string{"thought-people", "people"}},
		},
		Phases: []PhaseResult{
			{Phase: finding.PhaseLint, Name: "lint people", Sidecar: "people", File: "schemas/people/schema.sql", Duration: 4 * time.Millisecond},
			{Phase: finding.PhaseRerun, Name: "rerun people", Sidecar: "people", File: "schemas/people/schema.sql", Duration: 610 * time.Millisecond},
			{Phase: finding.PhaseLint, Name: "lint thought-people", Sidecar: "thought-people", File: "schemas/thought-people/schema.sql", Duration: 3 * time.Millisecond, Findings: []finding.Finding{
				{Phase: finding.PhaseLint, Rule: "table-rls-disabled", Severity: finding.SevError, Pos: finding.Position{File: "schemas/thought-people/schema.sql", Line: 3, Col: 1},
					Message: "table public.thought_people is created without row level security", Object: "table public.thought_people"},
			}},
			{Phase: finding.PhaseInstall, Name: "install thought-people", Sidecar: "thought-people", File: "schemas/thought-people/schema.sql", Duration: 120 * time.Millisecond, Findings: []finding.Finding{
				{Phase: finding.PhaseInstall, Rule: "install-failed", Severity: finding.SevError, Pos: finding.Position{File: "schemas/thought-people/schema.sql", Line: 12, Col: 1},
					Message: "the migration does not install: column t.source_type does not exist (SQLSTATE 42703)"},
			}},
			{Phase: finding.PhaseInstall, Name: "install tag-people", Sidecar: "tag-people", File: "recipes/tag-people/view.sql", Status: StatusSkip,
				Notes: []string{"not checked: tag-people needs thought-people, which does not install (see the phase install thought-people)"}},
		},
	}
}

// A repository's run is grouped by sidecar in every format: a table of the sidecars with their
// status, findings, time and needs (text, step summary, html), a heading per sidecar before its
// phases' findings, and each phase's and result's sidecar in json and sarif.
func TestRepositoryGoldens(t *testing.T) { checkGoldens(t, "repository", repositorySample, false) }
