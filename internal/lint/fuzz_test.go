package lint

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLint asserts that linting any input never panics and that every finding has a rule and a
// message. Seeds are the golden inputs.
func FuzzLint(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/lint/*/input.sql")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, 0)
		}
	}
	f.Add([]byte("CREATE TABLE t (v vector(3));"), 1536)
	cfg := shippedConfig(f)
	f.Fuzz(func(t *testing.T, src []byte, dim int) {
		for _, fd := range Source("f.sql", src, cfg, Options{Dim: dim}) {
			if fd.Rule == "" || fd.Message == "" || fd.Pos.Line < 1 {
				t.Fatalf("malformed finding %+v", fd)
			}
		}
	})
}
