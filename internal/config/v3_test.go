package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// repo writes files (path to content) under a new directory and returns it.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const v3 = `version: 3
fixture: fx.sql
probes:
  - {name: p, sql: select 1}
sidecars:
  - {glob: "schemas/*/schema.sql", dim: 1536}
  - name: ops
    file: recipes/ops.sql
    dim: 1024
    needs: [enhanced, smart]
    ports: [{name: small, file: recipes/ops_768.sql, dim: 768, allowlist: al.yaml}]
    probes: []
    lint: {severity: {dynamic-sql: off}}
  - {name: smart, file: schemas/smart/schema.sql, dim: 1536, previous: old/smart.sql, needs: [enhanced], prerequisites: {openbrain: false}}
`

// A file of version 3 lists sidecars: a glob adds one per match named after its directory (but
// not a file another entry names), each entry keeps the keys of version 2, the top-level keys
// are its defaults, and the list comes in dependency order.
func TestVersion3(t *testing.T) {
	dir := repo(t, map[string]string{"schemas/enhanced/schema.sql": "", "schemas/smart/schema.sql": "", "schemas/zeta.v2/schema.sql": ""})
	c, err := Parse(filepath.Join(dir, "ledgercheck.yaml"), []byte(v3))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range c.Repository() {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "enhanced zeta.v2 smart ops" {
		t.Fatalf("sidecars in order %q, want enhanced zeta.v2 smart ops (each after what it needs)", got)
	}
	by := map[string]*Config{}
	for _, s := range c.Sidecars {
		by[s.Name] = s.Config
	}
	e, sm, ops := by["enhanced"], by["smart"], by["ops"]
	if e.Artifact.File != filepath.Join(dir, "schemas/enhanced/schema.sql") || e.Artifact.Dim != 1536 || e.Fixture != filepath.Join(dir, "fx.sql") ||
		len(e.Probes) != 1 || !e.Prerequisites.OpenBrain || len(e.Lint.Existing) == 0 || e.Rerun.Times != 2 {
		t.Errorf("a glob's sidecar with the defaults: %+v", e)
	}
	if sm.Artifact.Previous != filepath.Join(dir, "old/smart.sql") || sm.Prerequisites.OpenBrain || c.Sidecars[2].Needs[0] != "enhanced" {
		t.Errorf("the entry that names a file a glob matches: %+v", sm)
	}
	if ops.Artifact.Dim != 1024 || len(ops.Ports) != 1 || ops.Ports[0].Allowlist != filepath.Join(dir, "al.yaml") || len(ops.Probes) != 0 ||
		ops.Lint.Severity["dynamic-sql"] != "off" || ops.Fixture != e.Fixture {
		t.Errorf("a sidecar's own keys: %+v", ops)
	}
	if ops.Line("ports.0.dim") != 11 || ops.Key("artifact.dim") != "sidecars.1.dim" {
		t.Errorf("a sidecar's keys are its entry's: line %d, key %q", ops.Line("ports.0.dim"), ops.Key("artifact.dim"))
	}
	if one := Default().Repository(); len(one) != 1 || one[0].Config.Artifact.File != "migrations/decision_ledger.sql" || one[0].Name != "decision_ledger" {
		t.Errorf("a file of version 2 is one sidecar: %+v", one)
	}
}

// Every error of version 3 is at its line (and, for a needs item, its column).
func TestVersion3Errors(t *testing.T) {
	dir := repo(t, map[string]string{"schemas/a/schema.sql": "", "schemas/b/schema.sql": ""})
	cases := []struct{ name, yaml, want string }{
		{"unknown need", "version: 3\nsidecars:\n  - {name: a, file: a.sql, dim: 3, needs: [b, nope]}\n  - {name: b, file: b.sql, dim: 3}\n",
			"c.yaml:3:47: sidecar \"a\" needs \"nope\", which is not a sidecar of this file (its sidecars: a, b)"},
		{"misspelt need", "version: 3\nsidecars:\n  - {name: alpha, file: a.sql, dim: 3, needs: [betta]}\n  - {name: beta, file: b.sql, dim: 3}\n",
			"c.yaml:3:48: sidecar \"alpha\" needs \"betta\", which is not a sidecar of this file (did you mean beta?) (its sidecars: alpha, beta)"},
		{"cycle", "version: 3\nsidecars:\n  - {name: a, file: a.sql, dim: 3, needs: [b]}\n  - name: b\n    file: b.sql\n    dim: 3\n    needs:\n      - a\n",
			"c.yaml:8:9: sidecar \"b\" needs \"a\": a cycle (a -> b -> a)"},
		{"self", "version: 3\nsidecars:\n  - {name: a, file: a.sql, dim: 3, needs: [a]}\n", "c.yaml:3:44: sidecar \"a\" needs \"a\": a cycle (a -> a)"},
		{"glob cycle", "version: 3\nsidecars:\n  - {glob: \"schemas/*/schema.sql\", dim: 3, needs: [a]}\n", "c.yaml:3:52: sidecar \"a\" needs \"a\": a cycle"},
		{"same name", "version: 3\nsidecars:\n  - {name: a, file: a.sql, dim: 3}\n  - {name: a, file: b.sql, dim: 3}\n", "c.yaml:4: sidecars 1 and 2 are both named \"a\""},
		{"no name", "version: 3\nsidecars:\n  - {file: a.sql, dim: 3}\n", "c.yaml:3: sidecar 1 has no name"},
		{"no file", "version: 3\nsidecars:\n  - {name: a, dim: 3}\n", "c.yaml:3: sidecar \"a\" has no file"},
		{"dim", "version: 3\nsidecars:\n  - name: a\n    file: a.sql\n    dim: 0\n", "c.yaml:5: sidecar \"a\": dim 0 is out of range"},
		{"port dim", "version: 3\nsidecars:\n  - name: a\n    file: a.sql\n    dim: 3\n    ports:\n      - {file: p.sql, dim: 0}\n", "c.yaml:7: port \"p\": dim 0"},
		{"empty", "version: 3\nsidecars: []\n", "c.yaml:2: sidecars: none listed"},
		{"unknown key", "version: 3\nsidecars:\n  - {name: a, file: a.sql, dim: 3, need: [b]}\n", "c.yaml:3:36: unknown key need"},
		{"no match", "version: 3\nsidecars:\n  - {glob: \"nothing/*.sql\", dim: 3}\n", "c.yaml:3: glob \"nothing/*.sql\" matches no file"},
		{"glob and name", "version: 3\nsidecars:\n  - {glob: \"schemas/*/schema.sql\", name: x, dim: 3}\n", "c.yaml:3: sidecar 1: a glob entry takes neither name nor file"},
		{"sidecar rerun", "version: 3\nsidecars:\n  - name: a\n    file: a.sql\n    dim: 3\n    rerun: {times: -1}\n", "c.yaml:6: rerun.times -1: want at least 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(filepath.Join(dir, "c.yaml"), []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if fault.KindOf(err) != fault.KindInput {
				t.Errorf("%v: not an input error (exit 2)", err)
			}
		})
	}
}

// Load confines every sidecar's paths to the repository, as it does version 2's.
func TestVersion3Confined(t *testing.T) {
	dir := repo(t, map[string]string{"a.sql": "", "ledgercheck.yaml": "version: 3\nsidecars:\n  - {name: a, file: a.sql, dim: 3}\n  - {name: b, file: ../../outside.sql, dim: 3}\n"})
	_, err := Load(filepath.Join(dir, "ledgercheck.yaml"), false)
	if err == nil || !strings.Contains(err.Error(), "ledgercheck.yaml:4:") || !strings.Contains(err.Error(), "sidecars.1.file") {
		t.Fatalf("err = %v, want the second sidecar's file refused at line 4", err)
	}
	c, err := Load(filepath.Join(dir, "ledgercheck.yaml"), true)
	if err != nil || c.Sidecars[0].Config.Scope != c.Scope {
		t.Fatalf("with --allow-outside-repo: %v; every sidecar reads through the file's scope", err)
	}
}

// One sidecar stands alone as a file of version 2: its prerequisite files are the files of the
// sidecars it needs, directly or not, in dependency order, then its own; an unknown name is an
// input error with the nearest one.
func TestOneSidecarStandsAlone(t *testing.T) {
	dir := repo(t, map[string]string{"schemas/enhanced/schema.sql": "", "schemas/smart/schema.sql": "", "schemas/zeta.v2/schema.sql": ""})
	c, err := Parse(filepath.Join(dir, "ledgercheck.yaml"), []byte(v3))
	if err != nil {
		t.Fatal(err)
	}
	ops, err := c.Sidecar("ops")
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range ops.Prerequisites.Files {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, r)
	}
	if got := strings.Join(rel, " "); got != "schemas/enhanced/schema.sql schemas/smart/schema.sql" || ops.Version != Version || ops.SidecarName() != "ops" {
		t.Errorf("ops alone: version %d, name %q, prerequisites %q; want version %d, ops, enhanced's file then smart's", ops.Version, ops.SidecarName(), got, Version)
	}
	if _, err := c.Sidecar("smrt"); err == nil || fault.KindOf(err) != fault.KindInput || !strings.Contains(err.Error(), "did you mean smart?") {
		t.Errorf("an unknown sidecar: %v", err)
	}
}
