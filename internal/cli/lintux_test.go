package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runCLIStdin is runCLI with stdin.
func runCLIStdin(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestLintReadsStandardInput: `lint -` lints the migration on standard input, named <stdin> in
// its findings, quoted under them like a file, beside files named on the command line; standard
// input over the migration size limit is refused like such a file.
func TestLintReadsStandardInput(t *testing.T) {
	bad := cleanSQL + "ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS x int;\nNOTIFY pgrst, 'reload schema';\n"
	clean := writeSQL(t, "clean.sql", cleanSQL)
	code, out, errs := runCLIStdin(t, bad, "lint", "-q", clean, "-")
	want := "<stdin>:7:13: error: ALTER TABLE changes table public.thoughts, which this file did not create: alter (AddColumn) [modifies-existing-object]\n" +
		"  7 | ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS x int;\n" +
		"    |             ^\n\nFAIL: 1 error in 2 files\n"
	if code != ExitFindings || out != want || errs != "" {
		t.Errorf("lint FILE -: exit %d, stdout %q, stderr %q; want exit 1 and\n%s", code, out, errs, want)
	}
	code, out, _ = runCLIStdin(t, cleanSQL, "lint", "-q", "-")
	if code != ExitOK || out != "PASS: no findings in 1 file\n" {
		t.Errorf("lint - of a clean migration: exit %d, stdout %q", code, out)
	}
	code, _, errs = runCLIStdin(t, strings.Repeat("-- x\n", 1<<20), "lint", "-q", "-")
	if code != ExitInput || !strings.Contains(errs, "standard input") || strings.Count(errs, "\n") != 1 {
		t.Errorf("lint - of 5 MiB: exit %d, stderr %q; want exit 2 and one line naming standard input", code, errs)
	}
}

// TestLintExclude: --exclude RULE (repeatable) turns lint rules off for the run, as lint.severity
// RULE: off does; an unknown id is refused with the closest one, and a rule of another phase
// with what it is.
func TestLintExclude(t *testing.T) {
	p := writeSQL(t, "t.sql", "CREATE TABLE public.agent_notes (id uuid PRIMARY KEY);\n")
	_, all, _ := runCLI(t, "lint", "-q", p)
	code, out, _ := runCLI(t, "lint", "-q", "--exclude", "table-rls-disabled", "--exclude", "not-idempotent", p)
	if !strings.Contains(all, "[table-rls-disabled]") || !strings.Contains(all, "[not-idempotent]") {
		t.Fatalf("the file does not break the rules the test excludes:\n%s", all)
	}
	if code != ExitFindings || strings.Contains(out, "[table-rls-disabled]") || strings.Contains(out, "[not-idempotent]") ||
		len(findingLines(out)) != len(findingLines(all))-2 {
		t.Errorf("--exclude table-rls-disabled --exclude not-idempotent: exit %d, stdout:\n%s\nwant the other findings alone of:\n%s", code, out, all)
	}
	for arg, want := range map[string]string{
		"not-idempotnt":       "ledgercheck: --exclude not-idempotnt: unknown rule \"not-idempotnt\": did you mean not-idempotent?\n",
		"api-reads-every-row": "ledgercheck: --exclude api-reads-every-row: a rule of the audit phase, not lint's; only lint's rules can be turned off\n",
	} {
		code, out, errs := runCLI(t, "lint", "-q", "--exclude", arg, p)
		if code != ExitInput || out != "" || errs != want {
			t.Errorf("--exclude %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", arg, code, out, errs, want)
		}
	}
}
