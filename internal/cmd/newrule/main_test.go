package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScaffoldRefuses: a malformed or registered id, an unknown phase or severity write nothing.
func TestScaffoldRefuses(t *testing.T) {
	for _, o := range []options{
		{id: "My_Rule", phase: "lint", severity: "error"},
		{id: "not-idempotent", phase: "lint", severity: "error"},
		{id: "my-rule", phase: "linting", severity: "error"},
		{id: "my-rule", phase: "lint", severity: "fatal"},
	} {
		if _, err := scaffold(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestDryRunWritesNothing: -n prints every file and leaves the tree as it was.
func TestDryRunWritesNothing(t *testing.T) {
	root := t.TempDir()
	var out bytes.Buffer
	if err := run(options{id: "my-rule", phase: "lint", severity: "warning", root: root}, true, &out); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"docs/rules/my-rule.md", "internal/lint/my_rule.go", "testdata/lint/my-rule/input.sql", "testdata/lint/my-rule/want.txt"} {
		if !strings.Contains(out.String(), "== "+p+" ==") {
			t.Errorf("-n does not print %s", p)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("-n wrote %v", entries)
	}
}

// TestScaffoldBuildsInACopy copies the repository, scaffolds a lint rule and a rerun rule in the
// copy, and checks what a contributor gets: the module builds, both rules are registered from
// their pages, the rules index regenerates with them, and the lint rule's failing case fails
// (its check is still empty) while an existing rule's case passes.
func TestScaffoldBuildsInACopy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a copy of the module (-short)")
	}
	src, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dst := copyRepo(t, src)
	for _, o := range []options{{id: "scaffolded-lint-rule", phase: "lint"}, {id: "scaffolded-rerun-rule", phase: "rerun"}} {
		o.severity, o.root = "warning", dst
		var out bytes.Buffer
		if err := run(o, false, &out); err != nil {
			t.Fatalf("%s: %v", o.id, err)
		}
	}
	goIn(t, dst, "build", "./...")
	goIn(t, dst, "run", "./internal/cmd/gendocs")
	index, err := os.ReadFile(filepath.Join(dst, "docs/rules/README.md"))
	if err != nil || !strings.Contains(string(index), "(scaffolded-lint-rule.md)") || !strings.Contains(string(index), "(scaffolded-rerun-rule.md)") {
		t.Errorf("the regenerated index does not link the new rules (%v)", err)
	}
	// -vet=off: vet is make lint's, and a cold build cache vets every dependency for its facts
	// first (289 vet runs, 6.6 s of CPU in a fresh clone's make test, 2026-12-06).
	goIn(t, dst, "test", "-vet=off", "-count=1", "-run", "TestRulesIndexInSync|TestEveryRuleHasAPageAndEveryPageARule", "./internal/cmd/gendocs")
	// One test binary for both cases: an existing rule's passes, the scaffolded one's fails.
	cmd := exec.Command("go", "test", "-vet=off", "-count=1", "-v", "-run", "^TestGolden$/^(missing-notify-reload|scaffolded-lint-rule)$", "./internal/lint")
	cmd.Dir = dst
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--- FAIL: TestGolden/scaffolded-lint-rule ") {
		t.Errorf("the scaffolded failing case passes before the check is written (%v):\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestGolden/missing-notify-reload ") {
		t.Errorf("an existing rule's case does not pass beside the scaffolded one:\n%s", out)
	}
}

// copyRepo copies the files git tracks (and the working tree's changes to them) into a
// temporary directory.
func copyRepo(t *testing.T, src string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", src, "ls-files", "-co", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	dst := t.TempDir()
	for _, rel := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		b, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			continue // deleted in the working tree
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func goIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
