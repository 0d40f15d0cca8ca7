package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"gopkg.in/yaml.v3"
)

// knownCases are configurations for decodeKnown: the repository's, and keys it must hand to
// strictDecode.
func knownCases(t testing.TB) [][]byte {
	var out [][]byte
	paths, _ := filepath.Glob("../../testdata/lint/*/config.yaml")
	for _, p := range append(paths, "../../ledgercheck.yaml", "default.yaml") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	for _, s := range []string{
		"version: 2\nartifact: {file: a.sql, dim: 1536}\n",
		"version: 2\nartifact: {file: a.sql, dim: 1536, nope: 1}\n",
		"version: 2\nnope: 1\n",
		"version: 2\nports:\n  - {name: p, file: b.sql, dim: 1024, allowlist: al.yaml, extra: x}\n",
		"version: 2\nlint:\n  severity: {table-rls-disabled: warning}\n  allow:\n    - {object: t, actions: [drop], reason: r, why: x}\n",
		"version: 2\nlint:\n  definer_callers:\n    - {function: f(int), roles: [anon], reason: r}\n",
		"version: 2\nlint:\n  rules: {}\n",
		"version: 2\nprobes:\n  - {name: a, sql: SELECT 1, tolerance: 0.5, role: r}\n  - {name: b, sql: SELECT 2, sq: x}\n",
		"version: 2\nlimits: {statement_timeout: 60s, lock: 1s}\n",
		"version: 2\nartifact: &a {file: a.sql, dim: 1536}\nports:\n  - *a\n",
		"version: 2\nbase: &b {file: a.sql}\nartifact:\n  <<: *b\n  dim: 3\n",
		"version: 2\nartifact: [1]\nports: {a: 1}\n",
		"version: 2\nartifact: {file: [1]}\n",
		"version: 2\n? [a]\n: 1\n",
		"version: 2\nVersion: 2\n",
		"version: 2\nfixture: ~\nprobes: ~\n",
		"version: 2\n---\nnope: 1\n",
	} {
		out = append(out, []byte(s))
	}
	return out
}

// decodeKnown decodes what strictDecode decodes, and fails where it fails, with its error.
func TestDecodeKnownIsStrictDecode(t *testing.T) {
	for _, data := range knownCases(t) {
		sameAsStrict(t, data)
	}
}

func sameAsStrict(t *testing.T, data []byte) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return
	}
	for _, newV := range []func() any{func() any { return &Config{} }, func() any { return &configV3{} }} {
		got, want := newV(), newV()
		gerr, werr := decodeKnown(data, &doc, got), strictDecode(data, want)
		if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
			t.Fatalf("%q into %T: decodeKnown error %v, strictDecode %v", data, got, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q into %T: decodeKnown %+v, strictDecode %+v", data, got, got, want)
		}
	}
}

func FuzzDecodeKnown(f *testing.F) {
	for _, data := range knownCases(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsStrict(t, data) })
}
