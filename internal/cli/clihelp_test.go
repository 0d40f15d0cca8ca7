package cli

import (
	"strings"
	"testing"
)

// expectInputError runs the CLI and wants exit 2, nothing on stdout and exactly the one line
// want on stderr.
func expectInputError(t *testing.T, want string, args ...string) {
	t.Helper()
	code, out, errs := runCLI(t, args...)
	if code != ExitInput || out != "" || errs != "ledgercheck: "+want+"\n" {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out, errs, "ledgercheck: "+want)
	}
}

func TestFlagSuggestions(t *testing.T) {
	expectInputError(t, "unknown flag --formt (did you mean --format?)", "check", "--formt", "json")
	expectInputError(t, "unknown flag --quite (did you mean --quiet?)", "lint", "--quite", "x.sql") // inherited
	expectInputError(t, "unknown flag --outptu (did you mean --output?)", "parity", "--outptu", "sarif=x")
	expectInputError(t, "unknown flag: --zzzzzz", "lint", "--zzzzzz")
	expectInputError(t, `unknown command "lnt" for "ledgercheck" (did you mean lint?)`, "lnt")
	expectInputError(t, `unknown command "chek" for "ledgercheck allowlist" (did you mean check?)`, "allowlist", "chek", "x.yaml")
}

func TestFlagValueErrors(t *testing.T) {
	expectInputError(t, `invalid value "abc" for --port-dim: want a whole number of dimensions between 1 and 16000`, "check", "--port-dim", "abc")
	expectInputError(t, `invalid value "abc" for --dim: want a whole number of dimensions between 1 and 16000`, "lint", "--dim", "abc", "x.sql")
	expectInputError(t, `invalid value "x" for --times: want a whole number`, "check", "--times", "x")
	expectInputError(t, `invalid value "x" for --pg: want a PostgreSQL major version, 15 or 17`, "check", "--pg", "x")
	expectInputError(t, `invalid value "3x" for --older-than: want a duration such as 90s, 2m or 1h30m`, "cleanup", "--older-than", "3x")
	expectInputError(t, `invalid value "xml" for --format: "xml" is not a format; want one of text, json, sarif, github, html`, "lint", "--format", "xml", "x.sql")
	expectInputError(t, `invalid value "maybe" for --quiet: want true or false`, "lint", "--quiet=maybe", "x.sql")
	for _, args := range [][]string{{"check", "--port-dim", "abc"}, {"cleanup", "--older-than", "3x"}} {
		if _, _, errs := runCLI(t, args...); strings.Contains(errs, "strconv") || strings.Contains(errs, "time:") {
			t.Errorf("%v: %q speaks Go's words", args, errs)
		}
	}
}

func TestRuleIDSuggestions(t *testing.T) {
	expectInputError(t, `unknown rule "not-idempotnet": did you mean not-idempotent?`, "explain", "not-idempotnet")
	cfg := writeSQL(t, "c.yaml", "version: 2\nlint:\n  severity:\n    destructive-statment: off\n")
	code, _, errs := runCLI(t, "lint", "--config", cfg, writeSQL(t, "a.sql", cleanSQL))
	if code != ExitInput || !strings.Contains(errs, `c.yaml:2: severity for unknown rule "destructive-statment": did you mean destructive-statement?`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
