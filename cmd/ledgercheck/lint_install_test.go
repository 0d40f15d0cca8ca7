package main

import (
	"errors"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
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

// TestLintInstallReportsTheAuditInEveryFormat: a view over an RLS table without
// security_invoker, granted to anon, is found by the installed audit, at the CREATE VIEW, in
// every format.
func TestLintInstallReportsTheAuditInEveryFormat(t *testing.T) {
	scratchtest.NeedPostgres(t)
	path := filepath.Join(t.TempDir(), "feed.sql")
	src := "CREATE OR REPLACE VIEW public.public_feed AS SELECT id, content FROM public.thoughts;\n" +
		"-- ledgercheck:ignore grant-to-api-role the feed is public on purpose in this test\n" +
		"GRANT SELECT ON public.public_feed TO anon;\nNOTIFY pgrst, 'reload schema';\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// One run writes every format: text on stdout, the others through --output.
	dir := t.TempDir()
	args := []string{"lint", "-q", "--install", "--format", "text"}
	for _, f := range []string{"json", "sarif", "github", "html"} {
		args = append(args, "--output", f+"="+filepath.Join(dir, f))
	}
	out, err := exec.Command(binary(t), append(args, path)...).Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1; stdout:\n%s", err, out)
	}
	for _, c := range []struct{ format, want string }{
		{"text", path + ":1:1: error: anon and authenticated (on self-hosted projects, with the old default privileges) can SELECT view public.public_feed"},
		{"json", `"rule": "security-definer-view"`},
		{"json", `"line": 1`},
		{"sarif", `"ruleId": "security-definer-view"`},
		{"github", "::error file=" + path + ",line=1,col=1,title="},
		{"github", "security-definer-view::anon and authenticated (on self-hosted projects, with the old default privileges) can SELECT view public.public_feed"},
		{"html", "security-definer-view"},
	} {
		got := out
		if c.format != "text" {
			if got, err = os.ReadFile(filepath.Join(dir, c.format)); err != nil {
				t.Fatal(err)
			}
		}
		if !strings.Contains(string(got), c.want) {
			t.Errorf("%s: output lacks %q:\n%s", c.format, c.want, got)
		}
	}
}

// TestLintInstallUsesTheCachedTemplate: `lint --install` (the pre-commit hook with an install)
// names its template to the cache, so a second run copies the cluster and the template instead
// of building the template again; and so does `snapshot`.
func TestLintInstallUsesTheCachedTemplate(t *testing.T) {
	scratchtest.NeedPostgres(t)
	path := filepath.Join(t.TempDir(), "notes.sql")
	if err := os.WriteFile(path, []byte("CREATE TABLE IF NOT EXISTS public.note_tags (tag text PRIMARY KEY);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "LEDGERCHECK_CACHE_DIR="+t.TempDir())
	// lint --install builds a template per privilege model the audit answers for (a hosted
	// project's and a self-hosted one's); snapshot one.
	for _, tc := range []struct {
		args      []string
		templates string
	}{
		{[]string{"lint", "--install", "--dim", "768", path}, "2 templates"},
		{[]string{"snapshot", "--dim", "640"}, "1 template"},
	} {
		args := tc.args
		for run := 1; run <= 2; run++ {
			cmd := exec.Command(binary(t), args...)
			cmd.Env = env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			// lint may report findings (exit 1); what matters here is where the template came from.
			err := cmd.Run()
			log := stderr.String()
			var ee *exec.ExitError
			if err != nil && (!errors.As(err, &ee) || ee.ExitCode() >= 2) {
				t.Fatalf("%v: %v\n%s", args, err, log)
			}
			built := strings.Contains(log, "template for dimension")
			copied := strings.Contains(log, "cluster and "+tc.templates+" copied from the cache")
			if run == 1 && (!built || !strings.Contains(log, "cluster and "+tc.templates+" cached in")) {
				t.Errorf("%v, run 1: the template is not built and cached:\n%s", args, log)
			}
			if run == 2 && (built || !copied) {
				t.Errorf("%v, run 2: the template is not taken from the cache:\n%s", args, log)
			}
		}
	}
}
