package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// complete runs cobra's hidden completion command with args and returns the candidates (without
// their descriptions) and the directive line.
func complete(t *testing.T, args ...string) (candidates []string, directive string) {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"__complete"}, args...)...)
	if code != ExitOK {
		t.Fatalf("__complete %v: exit %d, stderr %q", args, code, errs)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(line, ":") {
			directive = line
			continue
		}
		candidates = append(candidates, strings.SplitN(line, "\t", 2)[0])
	}
	return candidates, directive
}

// TestCompletion: the shell completes explain's RULE with the rule ids, --format with the
// formats, and --output with "FORMAT=" (no space after it, no file names) and then a file name,
// on every command that reports findings.
func TestCompletion(t *testing.T) {
	got, dir := complete(t, "explain", "")
	if !slices.Equal(got, rule.IDs()) || dir != ":4" {
		t.Errorf("explain <TAB>: %v %s; want every rule id (%d) and no file names (:4)", got, dir, len(rule.IDs()))
	}
	if got, _ := complete(t, "explain", "rls-"); !slices.Equal(got, []string{"rls-disabled-in-public", "rls-enabled-no-policy"}) {
		t.Errorf("explain rls-<TAB>: %v", got)
	}
	if got, _ := complete(t, "explain", "rls-disabled-in-public", ""); len(got) != 0 {
		t.Errorf("explain RULE <TAB>: %v; want nothing", got)
	}
	for _, cmd := range []string{"check", "lint", "parity", "rerun"} {
		if got, dir := complete(t, cmd, "--format", ""); !slices.Equal(got, reportFormats) || dir != ":4" {
			t.Errorf("%s --format <TAB>: %v %s; want %v and no file names", cmd, got, dir, reportFormats)
		}
		if got, dir := complete(t, cmd, "--output", "s"); !slices.Equal(got, []string{"sarif="}) || dir != ":6" {
			t.Errorf("%s --output s<TAB>: %v %s; want sarif= with no space after it (:6)", cmd, got, dir)
		}
		if got, dir := complete(t, cmd, "--output", "sarif=a"); len(got) != 0 || dir != ":0" {
			t.Errorf("%s --output sarif=a<TAB>: %v %s; want the shell's file names (:0)", cmd, got, dir)
		}
	}
}
