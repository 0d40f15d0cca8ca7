package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/report/reporttest"
)

// File names that hold line breaks and workflow commands cannot inject a command into a GitHub
// Actions log through lint --format github: the runner sees exactly the annotations ledgercheck
// meant, on stdout, and none on stderr, whose progress lines name the files too.
func TestGitHubFormatInjection(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"x\n::warning::pwned.sql", "y\r##[error]pwned.sql"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("CREATE TABLE IF NOT EXISTS public.t (id int);\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	code, out, errs := runCLI(t, append([]string{"lint", "--format", "github"}, paths...)...)
	if code != ExitFindings {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	// Each file breaks four rules: no trailing NOTIFY, no RLS, no policy, no grant.
	annotation := regexp.MustCompile(`^::error file=[^:,\r\n]+(,line=\d+)(,col=\d+)?,title=lint [^:\r\n]+%3A [a-z-]+::[^\r\n]+$`)
	cmds := reporttest.WorkflowCommands(out)
	for _, c := range cmds {
		if !annotation.MatchString(c) {
			t.Errorf("stdout: the runner would take %q for a command", c)
		}
	}
	if len(cmds) != 8 {
		t.Errorf("stdout has %d commands, want the 8 annotations:\n%s", len(cmds), strings.Join(cmds, "\n"))
	}
	if cmds := reporttest.WorkflowCommands(errs); len(cmds) != 0 {
		t.Errorf("stderr: the runner would take %q for commands", cmds)
	}
	// The text report, inside the stop-commands block, still names both files.
	if !strings.Contains(out, "::warning::pwned.sql:1:1: error:") || !strings.Contains(out, "##[error]pwned.sql:1:1: error:") {
		t.Errorf("the text report lost the findings:\n%s", out)
	}
}
