package main

import (
	"errors"
	"ledgercheck/internal/scratch/scratchtest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintInstallCatchesDynamicSQL: a column added to thoughts by SQL built at run time is
// invisible to the static rules and caught once the file is installed.
func TestLintInstallCatchesDynamicSQL(t *testing.T) {
	scratchtest.NeedPostgres(t)
	path := filepath.Join(t.TempDir(), "dyn.sql")
	src := "DO $$\nBEGIN\n  EXECUTE format('ALTER TABLE %I ADD COLUMN note text', 'thoughts');\nEND\n$$;\nNOTIFY pgrst, 'reload schema';\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binary(t), "lint", "-q", "--install", "--dim", "1024", path).Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1; stdout:\n%s", err, out)
	}
	want := path + ":3:3: error: installing the file changed table public.thoughts"
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), "[undeclared-change]") {
		t.Errorf("stdout lacks %q ... [undeclared-change]:\n%s", want, out)
	}
	// Without --install only the warning about opaque dynamic SQL remains.
	out, err = exec.Command(binary(t), "lint", "-q", path).Output()
	if err != nil || strings.Contains(string(out), "undeclared-change") {
		t.Errorf("static lint: exit %v, output:\n%s", err, out)
	}
}
