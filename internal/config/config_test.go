package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ledgercheck/internal/fault"
)

func TestShippedConfigLoadsAndResolvesPaths(t *testing.T) {
	c, err := Load("../../ledgercheck.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Variants.Artifact.File != filepath.Join("../..", "migrations/decision_ledger.sql") || c.Variants.Artifact.Dim != 1536 ||
		c.Variants.Port.File != filepath.Join("../..", "migrations/ports/decision_ledger_1024.sql") || c.Variants.Port.Dim != 1024 {
		t.Errorf("variants = %+v", c.Variants)
	}
	if c.Allowlist != filepath.Join("../..", "allowlist.yaml") || c.Fixture != filepath.Join("../..", "testdata/fixtures/ledger_fixture.sql") {
		t.Errorf("allowlist %q fixture %q: not resolved against the file's directory", c.Allowlist, c.Fixture)
	}
	if c.Variants.Artifact.Previous != filepath.Join("../..", "testdata/fixtures/first_cut.sql") || c.Variants.Port.Previous != "" {
		t.Errorf("previous versions %q and %q: want the first cut for the artifact only, resolved", c.Variants.Artifact.Previous, c.Variants.Port.Previous)
	}
	if len(c.Probes) < 5 || c.Rerun.Times != 3 || c.Limits.InstallTimeout != 120*time.Second || !c.LintSet || len(c.Lint.Allow) != 1 {
		t.Errorf("probes %d rerun %+v limits %+v lint allow %d", len(c.Probes), c.Rerun, c.Limits, len(c.Lint.Allow))
	}
}

func TestDefaultsAndErrors(t *testing.T) {
	base := "version: 1\nvariants:\n  left: {file: a.sql, dim: 1536}\n  right: {file: b.sql, dim: 1024}\n"
	c, err := Parse("dir/c.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if c.Environment.Prerequisites != "builtin" || c.Limits.StatementTimeout != 60*time.Second || c.Variants.Artifact.File != "dir/a.sql" || c.LintSet || len(c.Lint.Existing) == 0 {
		t.Errorf("defaults: %+v", c)
	}
	cases := []struct{ name, yaml, want string }{
		{"unknown key", base + "probes:\n  - name: p\n    sql: select 1\n    tolerence: 1\n", "c.yaml:8: unknown key tolerence"},
		{"version", "version: 3\n", "c.yaml:1: version 3 is not supported"},
		{"dim", strings.Replace(base, "dim: 1024", "dim: 0", 1), "c.yaml:4: variants.right.dim 0 is out of range"},
		{"no file", "version: 1\nvariants:\n  left: {dim: 1536}\n  right: {file: b.sql, dim: 1024}\n", "c.yaml:3: variants.left.file is missing"},
		{"duplicate probe", base + "probes:\n  - {name: p, sql: select 1}\n  - {name: p, sql: select 2}\n", "c.yaml:7: probe name \"p\" is used twice (also at line 6)"},
		{"empty sql", base + "probes:\n  - name: p\n", "c.yaml:6: probe \"p\" has no sql"},
		{"prerequisites", base + "environment:\n  prerequisites: some\n", "c.yaml:6: environment.prerequisites \"some\""},
		{"duration", base + "limits:\n  lock_timeout: soon\n", "c.yaml:6:"},
		{"rerun", base + "rerun:\n  times: 1\n", "c.yaml:6: rerun.times 1"},
		{"lint", base + "lint:\n  severity: {no-such-rule: off}\n", "c.yaml:5: severity for unknown rule"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if fault.KindOf(err) != fault.KindInput {
				t.Error("not an input error (exit 2)")
			}
		})
	}
}

// A configuration may hold only the lint policy (for `ledgercheck lint` and its pre-commit
// hook); the commands that need variants say so when they are missing.
func TestLintOnlyConfig(t *testing.T) {
	c, err := Parse("dir/ledgercheck.yaml", []byte("version: 1\nlint:\n  severity:\n    dynamic-sql: off\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Variants != (Variants{}) || c.Lint.Severity["dynamic-sql"] != "off" {
		t.Errorf("variants %+v, lint severity %v", c.Variants, c.Lint.Severity)
	}
}
