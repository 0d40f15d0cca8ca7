package config

import (
	"github.com/ledgercheck/ledgercheck/internal/yamltext/yamltexttest"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse asserts that Parse never panics and that every error it returns is an input error
// of the form "ledgercheck.yaml:LINE: ..." with a line inside the file. Seeds are the shipped
// configuration, the lint goldens' configurations and a few broken ones.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/lint/*/config.yaml")
	for _, p := range append(seeds, "../../ledgercheck.yaml") {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"version: 2\nartifact: {file: a.sql, dim: 1536}\nports:\n  - {file: b.sql, dim: 1024}\n",
		"version: 2\nartifact: {file: a.sql, dim: 1536}\nports:\n  - {name: p, file: b.sql, dim: 1024, allowlist: al.yaml}\n  - {name: q, dsn: x, dim: 3}\nprerequisites: {openbrain: false, files: [d.sql]}\n",
		"version: 2\nports:\n  - {}\n  - name: [1]\n",
		"version: 3\nsidecars:\n  - {name: a, file: a.sql, dim: 3, needs: [b]}\n  - {name: b, file: b.sql, dim: 3, needs: [a, c]}\n  - {glob: \"*/x.sql\", dim: 3}\n",
		"version: 2\nartifact: {file: a.sql, dim: [1]}\n",
		"version: 2\nlimits:\n  statement_timeout: soon\n",
		"version: 2\nprobes:\n  - name: a\n    sql: SELECT 1\n  - name: a\n    sql: SELECT 2\n",
		"version: 2\nlint:\n  rules:\n    nope: off\n", "varients: {}\n", "- 1\n", "", "~\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse("ledgercheck.yaml", data)
		if err == nil {
			return
		}
		yamltexttest.CheckError(t, "ledgercheck.yaml", data, err)
	})
}
