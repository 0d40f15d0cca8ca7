package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestControlCharactersInNamesAreEscapedInEveryFormat lints a migration whose table is named
// with a terminal escape (clear the screen), a bell, a C1 CSI and a bidirectional override, as an
// attacker would name it to rewrite a reviewer's terminal or CI log, and writes every format from
// the one run: none holds a raw control character, and each still shows the name, escaped.
func TestControlCharactersInNamesAreEscapedInEveryFormat(t *testing.T) {
	name := "evil\x1b[2J\x07\u009b\u202ename"
	src := fmt.Sprintf("CREATE TABLE IF NOT EXISTS public.\"%s\" (id int PRIMARY KEY);\nNOTIFY pgrst, 'reload schema';\n", name)
	file := writeSQL(t, "evil.sql", src)
	dir := t.TempDir()
	file2 := writeSQL(t, "evil\x1b]0;title\a.sql", src) // progress names it on stderr
	args := []string{"lint", "--format", "text", file, file2}
	formats := []string{"json", "sarif", "github", "html", "text"}
	for _, f := range formats {
		args = append(args, "--output", f+"="+filepath.Join(dir, f))
	}
	code, stdout, stderr := runCLI(t, args...)
	if code != ExitFindings {
		t.Fatalf("lint: exit %d, stderr %q; want 1 (the table has no RLS)", code, stderr)
	}
	outs := map[string]string{"stdout": stdout, "stderr": stderr}
	for _, f := range formats {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		outs[f] = string(b)
	}
	for f, out := range outs {
		for i, r := range out {
			if r == utf8.RuneError || (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				t.Errorf("%s holds a raw %U at byte %d: %q", f, r, i, out[max(0, i-20):min(len(out), i+20)])
				break
			}
		}
		if f != "stderr" && !strings.Contains(out, `evil\x1b[2J`) && !strings.Contains(out, `evil\u001b[2J`) {
			t.Errorf("%s does not show the table's name escaped:\n%s", f, firstLines(out, 10))
		}
	}

	// An error line names the file as given: escaped too.
	code, _, stderr = runCLI(t, "lint", "-q", filepath.Join(dir, "evil\x1b[2J\a.sql"))
	if code != ExitInput || strings.ContainsAny(stderr, "\x1b\a") || !strings.Contains(stderr, `evil\x1b[2J\x07.sql: no such file`) {
		t.Errorf("lint of a missing file named with control characters: exit %d, stderr %q; want exit 2 and the name escaped", code, stderr)
	}
}
