package lint

import (
	"bytes"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/golden"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/report"
)

const goldenRoot = "../../testdata/lint"

// goldenCase is one directory under testdata/lint: input.sql, want.txt, and optionally dim (the
// --dim value) and config.yaml (a lint configuration replacing the default).
type goldenCase struct {
	name, dir string
}

func goldenCases(t testing.TB) []goldenCase {
	t.Helper()
	var cases []goldenCase
	err := filepath.WalkDir(goldenRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "input.sql" {
			dir := filepath.Dir(path)
			rel, _ := filepath.Rel(goldenRoot, dir)
			cases = append(cases, goldenCase{name: filepath.ToSlash(rel), dir: dir})
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", goldenRoot, err)
	}
	if len(cases) == 0 {
		t.Fatalf("no golden cases under %s", goldenRoot)
	}
	return cases
}

func (c goldenCase) run(t testing.TB) []finding.Finding {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(c.dir, "input.sql"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := shippedConfig(t)
	if f, err := os.Open(filepath.Join(c.dir, "config.yaml")); err == nil {
		cfg, err = LoadConfig(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	var opts Options
	if b, err := os.ReadFile(filepath.Join(c.dir, "dim")); err == nil {
		if opts.Dim, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
			t.Fatalf("%s: dim: %v", c.name, err)
		}
	}
	return Source("input.sql", src, cfg, opts)
}

func render(fs []finding.Finding) string {
	var b bytes.Buffer
	if err := report.WriteText(&b, fs); err != nil {
		panic(err)
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			got := render(c.run(t))
			golden.Check(t, filepath.Join(c.dir, "want.txt"), []byte(got))
		})
	}
}

// TestGoldenCaseNames checks the naming contract of the cases: a case named after a rule
// (RULE or RULE-something) reports that rule and no other; ok-* and fp-* cases report nothing.
func TestGoldenCaseNames(t *testing.T) {
	for _, c := range goldenCases(t) {
		fs := c.run(t)
		base := filepath.Base(c.dir)
		switch {
		case strings.HasPrefix(base, "ok-") || strings.HasPrefix(base, "fp-"):
			if len(fs) != 0 {
				t.Errorf("%s: want no findings, got\n%s", c.name, render(fs))
			}
		case strings.HasPrefix(base, "fn-") || strings.HasPrefix(base, "artifact"):
			if len(fs) == 0 {
				t.Errorf("%s: want findings, got none", c.name)
			}
		default:
			rule := ""
			for _, id := range IDs() {
				if (base == id || strings.HasPrefix(base, id+"-")) && len(id) > len(rule) {
					rule = id
				}
			}
			if rule == "" {
				t.Errorf("%s: case name names no rule (want RULE[-x], ok-x, fp-x or fn-x)", c.name)
				continue
			}
			if len(fs) == 0 {
				t.Errorf("%s: want %s findings, got none", c.name, rule)
			}
			for _, f := range fs {
				if f.Rule != rule {
					t.Errorf("%s: want only %s, got %s", c.name, rule, f)
				}
			}
		}
	}
}

// TestEveryRuleHasAFailingCase keeps the goldens complete as rules are added. undeclared-change
// needs an installed catalog, so its failing cases are TestCrossCheck here and the real-Postgres
// tests in ledgercheck/crosscheck.
func TestEveryRuleHasAFailingCase(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range goldenCases(t) {
		for _, f := range c.run(t) {
			seen[f.Rule] = true
		}
	}
	seen[ruleUndeclaredChange.ID] = true
	for _, id := range IDs() {
		if !seen[id] {
			t.Errorf("rule %s has no golden case that reports it", id)
		}
	}
}
