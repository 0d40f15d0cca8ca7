package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql/pgsqltest"
	"github.com/ledgercheck/ledgercheck/internal/report"
)

// A parse error in an unterminated dollar quote quotes one line of the file, not the rest of it:
// lint prints one finding line, the one line of source it points at, and the summary.
func TestUnterminatedDollarQuoteIsOneLine(t *testing.T) {
	body := strings.Repeat("  x := x + 1; -- a line of the body\n", 300)
	p := writeSQL(t, "dollar.sql", "CREATE FUNCTION public.f() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n"+body)
	t.Setenv("LEDGERCHECK_PG", "") // the default, 15, whatever make test-pg17 asks for
	code, out, _ := runCLI(t, "lint", "-q", p)
	want := p + `:1:60: error: unterminated dollar-quoted string at or near "$$…" (PostgreSQL would reject the file) [parse-error]` + "\n" +
		"  1 | CREATE FUNCTION public.f() RETURNS int LANGUAGE plpgsql AS $$\n" +
		"    | " + strings.Repeat(" ", 59) + "^\n\nFAIL: 1 error in 1 file\n"
	if code != ExitFindings || out != want {
		t.Errorf("exit %d, stdout (%d bytes)\n%.300s\nwant exit 1 and\n%s", code, len(out), out, want)
	}
}

// The server's error message and detail become the message of an install-failed finding; a huge
// one is cut, in every format.
func TestHugeServerMessageIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Postgres")
	}
	dsn := hostDSN(t, "")
	p := writeSQL(t, "raise.sql", "DO $$ BEGIN RAISE EXCEPTION USING MESSAGE = repeat('x', 2000000), DETAIL = repeat('d', 2000000); END $$;\nNOTIFY pgrst, 'reload schema';\n")
	for _, format := range []string{"text", "json", "github"} {
		code, out, errs := runCLI(t, "lint", "-q", "--install", "--format", format, "--dsn", dsn, p)
		// At most a few copies of the message and two of the detail (the github format shows it
		// in the annotation and in the text report), and the report's own text.
		if code != ExitFindings || !strings.Contains(out, "install-failed") || len(out) > 4*report.MaxMessage+2*report.MaxDetail+4<<10 {
			t.Errorf("--format %s: exit %d, stderr %q, stdout of %d bytes: %.300s; want exit 1 and a bounded install-failed finding", format, code, errs, len(out), out)
		}
		if format != "json" {
			continue
		}
		var doc struct {
			Phases []struct{ Findings []finding.Finding }
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Phases) != 1 || len(doc.Phases[0].Findings) != 1 {
			t.Fatalf("json: %v, %+v", err, doc)
		}
		if f := doc.Phases[0].Findings[0]; utf8.RuneCountInString(f.Message) > report.MaxMessage || !strings.HasSuffix(f.Message, " more bytes)") {
			t.Errorf("message of %d characters, ending %q; want it cut with a marker", utf8.RuneCountInString(f.Message), f.Message[max(0, len(f.Message)-40):])
		}
	}
}

// lint reads each nesting construct up to the limit, and refuses one level more with one line
// and exit 1; 40,000 terms, which crashed the process inside pg_query, are refused the same way.
func TestLintNestingLimit(t *testing.T) {
	type row struct {
		name  string
		sql   string
		under bool
	}
	var rows []row
	for _, c := range pgsqltest.NestingCases() {
		rows = append(rows, row{c.Name + " under", c.SQL(c.Under), true}, row{c.Name + " over", c.SQL(c.Under + 1), false})
	}
	rows = append(rows, row{"40,000 terms", "SELECT 1" + strings.Repeat("+1", 39999), false})
	for i, r := range rows {
		p := writeSQL(t, fmt.Sprintf("deep%d.sql", i), r.sql+";\nNOTIFY pgrst, 'reload schema';\n")
		code, out, errs := runCLI(t, "lint", "-q", p)
		want := regexp.MustCompile(`^` + regexp.QuoteMeta(p) + `:1:1: error: expression nesting of \d+ exceeds ledgercheck's limit of 2000; split the expression or the statement \[too-complex\]$`)
		lines := findingLines(out)
		switch {
		case r.under && (code != ExitOK || len(lines) != 0 || errs != ""):
			t.Errorf("%s: exit %d, stdout %q, stderr %.200q; want exit 0 and no finding", r.name, code, out, errs)
		case !r.under && (code != ExitFindings || len(lines) != 1 || !want.MatchString(lines[0]) || errs != ""):
			t.Errorf("%s: exit %d, stdout %q, stderr %.200q; want exit 1 and one too-complex line", r.name, code, out, errs)
		}
	}
}
