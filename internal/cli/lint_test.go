package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// findingLines returns the finding lines of lint's text output (file:line:col: severity: message
// [rule]), without the source lines quoted under them and the summary line.
func findingLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" && !strings.HasPrefix(l, " ") && !lintSummary.MatchString(l) {
			lines = append(lines, l)
		}
	}
	return lines
}

// lintSummary is the last line of lint's text output.
var lintSummary = regexp.MustCompile(`^(PASS|WARN|FAIL|SKIP): .* in \d+ files?$`)

func writeSQL(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const cleanSQL = `CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY);
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_all ON public.ledger;
CREATE POLICY ledger_all ON public.ledger FOR ALL TO service_role USING (true);
GRANT SELECT ON public.ledger TO service_role;
NOTIFY pgrst, 'reload schema';
`

func TestLintExitCodesAndText(t *testing.T) {
	bad := cleanSQL + "ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS x int;\nNOTIFY pgrst, 'reload schema';\n"
	warn := strings.Replace(cleanSQL, "NOTIFY", "CREATE OR REPLACE FUNCTION public.n() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\nGRANT EXECUTE ON FUNCTION public.n() TO service_role;\nNOTIFY", 1)
	for _, tc := range []struct {
		name, src string
		code      int
		want      func(path string) string // stdout, exactly; or, with a "~" prefix, a part of it
	}{
		{"clean file", cleanSQL, ExitOK, func(string) string { return "PASS: no findings in 1 file\n" }},
		{"bad file", bad, ExitFindings, func(p string) string {
			return p + ":7:13: error: ALTER TABLE changes table public.thoughts, which this file did not create: alter (AddColumn) [modifies-existing-object]\n" +
				"  7 | ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS x int;\n" +
				"    |             ^\n" +
				"\n" +
				"FAIL: 1 error in 1 file\n"
		}},
		{"warnings alone do not fail", warn, ExitOK, func(string) string { return "~warning:" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeSQL(t, "m.sql", tc.src)
			code, out, errs := runCLI(t, "lint", "-q", p)
			want := tc.want(p)
			ok := out == want
			if part, partial := strings.CutPrefix(want, "~"); partial {
				ok = strings.Contains(out, part)
			}
			if code != tc.code || !ok {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errs, tc.code, want)
			}
		})
	}
}

func TestLintJSONAndDim(t *testing.T) {
	p := writeSQL(t, "v.sql", strings.Replace(cleanSQL, "id uuid PRIMARY KEY", "id uuid PRIMARY KEY, e vector(1536)", 1))
	code, out, _ := runCLI(t, "lint", "-q", "--dim", "1024", "--format", "json", p)
	// The one report document of docs/json-schema.md, one phase per file.
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Phases        []struct {
			Findings []finding.Finding
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("json output: %v\n%s", err, out)
	}
	if code != ExitFindings || doc.SchemaVersion != 1 || len(doc.Phases) != 1 || len(doc.Phases[0].Findings) != 1 {
		t.Fatalf("exit %d, report %+v", code, doc)
	}
	if f := doc.Phases[0].Findings[0]; f.Rule != "vector-dimension" || f.Pos.Line != 1 || f.Pos.Col != 73 {
		t.Errorf("finding %+v", f)
	}
	if code, _, _ := runCLI(t, "lint", "-q", "--dim", "1536", p); code != ExitOK {
		t.Errorf("--dim 1536: exit %d, want 0", code)
	}
}

func TestLintInputErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lint", filepath.Join(dir, "missing.sql")}, "missing.sql: no such file"},
		{[]string{"lint", dir}, "the directory holds no .sql file"},
		{[]string{"lint", "--format", "xml", writeSQL(t, "a.sql", cleanSQL)}, "--format"},
		{[]string{"lint", "--config", filepath.Join(dir, "nope.yaml"), writeSQL(t, "b.sql", cleanSQL)}, "--config"},
		{[]string{"lint", "--config", writeSQL(t, "c.yaml", "version: 2\nlint:\n  severity:\n    no-such-rule: off\n"), writeSQL(t, "d.sql", cleanSQL)}, "unknown rule"},
		{[]string{"lint", "--config", writeSQL(t, "e.yaml", "unknown_key: 1\n"), writeSQL(t, "f.sql", cleanSQL)}, "unknown_key"},
		{[]string{"lint"}, "ledgercheck: lint: missing argument; usage: ledgercheck lint FILE|DIR|PATTERN... [flags]"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != ExitInput || out != "" || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", tc.args, code, out, errs, tc.want)
		}
	}
}

func TestLintConfigSeverityOverride(t *testing.T) {
	cfg := writeSQL(t, "c.yaml", "version: 2\nlint:\n  severity:\n    missing-notify-reload: warning\n")
	p := writeSQL(t, "n.sql", strings.Replace(cleanSQL, "NOTIFY pgrst, 'reload schema';\n", "", 1))
	code, out, _ := runCLI(t, "lint", "-q", "--config", cfg, p)
	if code != ExitOK || !strings.Contains(out, "warning: the last statement is GRANT") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		code      int
		out, errs []string // parts of stdout and stderr
		emptyOut  bool
	}{
		{args: []string{"explain"}, code: ExitOK, out: []string{"modifies-existing-object", "vector-dimension", "rerun-failed"}},
		{args: []string{"explain", "security-definer-public-execute"}, code: ExitOK, out: []string{"0028", "REVOKE EXECUTE"}},
		{args: []string{"explain", "no-such-rule"}, code: ExitInput, errs: []string{"parse-error"}, emptyOut: true},
	} {
		code, out, errs := runCLI(t, tc.args...)
		ok := code == tc.code && (!tc.emptyOut || out == "")
		for _, w := range tc.out {
			ok = ok && strings.Contains(out, w)
		}
		for _, w := range tc.errs {
			ok = ok && strings.Contains(errs, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stdout %.300q, stderr %q", tc.args, code, out, errs)
		}
	}
	// Every rule of every phase: the ids check, rerun and parity report included.
	for _, id := range append(rule.IDs(), "rerun-failed", "install-failed", "unreviewed-difference", "upgrade-rows-lost") {
		code, out, errs := runCLI(t, "explain", id)
		if code != ExitOK || !strings.HasPrefix(out, "# "+id+"\n") {
			t.Errorf("explain %s: exit %d, stdout %q, stderr %q", id, code, out, errs)
		}
	}
}

// Without --config, lint applies the lint section of ledgercheck.yaml in the working directory,
// as check does, so a pre-commit hook judges a file as the gate will.
func TestLintReadsLedgercheckYAML(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "n.sql")
	if err := os.WriteFile(p, []byte(strings.Replace(cleanSQL, "NOTIFY pgrst, 'reload schema';\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, "lint", "-q", p); code != ExitFindings {
		t.Fatalf("without a ledgercheck.yaml: exit %d, want 1 (missing-notify-reload)", code)
	}
	if err := os.WriteFile(filepath.Join(dir, "ledgercheck.yaml"), []byte("version: 2\nlint:\n  severity:\n    missing-notify-reload: warning\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, out, _ := runCLI(t, "lint", "-q", p)
	if code != ExitOK || !strings.Contains(out, "warning:") || !strings.Contains(out, "[missing-notify-reload]") {
		t.Errorf("with ledgercheck.yaml: exit %d, stdout %q; want 0 and the finding as a warning", code, out)
	}
}

// lint speaks every report format: sarif, github and html go through the report writers, one
// phase per file, with the same findings as the text format.
func TestLintReportFormats(t *testing.T) {
	p := writeSQL(t, "bad.sql", strings.Replace(cleanSQL, "NOTIFY pgrst, 'reload schema';\n", "", 1))
	code, text, _ := runCLI(t, "lint", "-q", p)
	if code != ExitFindings {
		t.Fatalf("text: exit %d", code)
	}
	n := len(findingLines(text))
	code, sarif, _ := runCLI(t, "lint", "-q", "--format", "sarif", p)
	var doc struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarif), &doc); err != nil || code != ExitFindings || doc.Version != "2.1.0" || len(doc.Runs) != 1 || len(doc.Runs[0].Results) != n {
		t.Errorf("sarif: exit %d, err %v, %+v; want 2.1.0 with %d results", code, err, doc, n)
	}
	code, gh, _ := runCLI(t, "lint", "-q", "--format", "github", p)
	if code != ExitFindings || !strings.Contains(gh, "::error file="+p+",line=") || !strings.Contains(gh, "missing-notify-reload") {
		t.Errorf("github: exit %d\n%s", code, gh)
	}
	code, html, _ := runCLI(t, "lint", "-q", "--format", "html", p)
	if code != ExitFindings || !strings.Contains(html, "<html") || !strings.Contains(html, "missing-notify-reload") {
		t.Errorf("html: exit %d", code)
	}
	if code, _, errs := runCLI(t, "lint", "--format", "yaml", p); code != ExitInput || !strings.Contains(errs, "want one of text, json, sarif, github, html") {
		t.Errorf("--format yaml: exit %d, %q", code, errs)
	}
}
