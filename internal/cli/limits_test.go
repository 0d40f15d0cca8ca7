package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"ledgercheck/report"
)

// A parse error in an unterminated dollar quote quotes one line of the file, not the rest of it:
// lint prints one line.
func TestUnterminatedDollarQuoteIsOneLine(t *testing.T) {
	body := strings.Repeat("  x := x + 1; -- a line of the body\n", 300)
	p := writeSQL(t, "dollar.sql", "CREATE FUNCTION public.f() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n"+body)
	code, out, _ := runCLI(t, "lint", "-q", p)
	want := p + `:1:60: error: unterminated dollar-quoted string at or near "$$…" (PostgreSQL would reject the file) [parse-error]` + "\n"
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
		if code != ExitFindings || !strings.Contains(out, "install-failed") || len(out) > 4*report.MaxMessage+report.MaxDetail+8<<10 {
			t.Errorf("--format %s: exit %d, stderr %q, stdout of %d bytes: %.300s; want exit 1 and a bounded install-failed finding", format, code, errs, len(out), out)
		}
		if format != "json" {
			continue
		}
		var doc struct{ Findings []report.Finding }
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Findings) != 1 {
			t.Fatalf("json: %v, %d findings", err, len(doc.Findings))
		}
		if f := doc.Findings[0]; utf8.RuneCountInString(f.Message) > report.MaxMessage || !strings.HasSuffix(f.Message, " more bytes)") {
			t.Errorf("message of %d characters, ending %q; want it cut with a marker", utf8.RuneCountInString(f.Message), f.Message[max(0, len(f.Message)-40):])
		}
	}
}
