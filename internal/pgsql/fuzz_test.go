package pgsql

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse asserts that Parse never panics and that every position it reports lies inside the
// file, on any input. Seeds are the lint goldens and the PL/pgSQL shape fixtures.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/lint/*/input.sql")
	more, _ := filepath.Glob("testdata/plpgsql/*.sql")
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("DO $$ BEGIN EXECUTE 'x' || 'y'; END $$;"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("f.sql", src)
		if err != nil {
			return
		}
		lines := 1
		for _, c := range src {
			if c == '\n' {
				lines++
			}
		}
		check := func(what string, p finding.Position) {
			if p.Line < 1 || p.Line > lines || p.Col < 1 {
				t.Fatalf("%s at %v outside the file (%d lines)", what, p, lines)
			}
		}
		for _, op := range file.Ops {
			check(op.Tag, op.Pos)
			check(op.Tag+" clause", op.At())
		}
		for _, v := range file.VectorTypes {
			check("vector type", v.Pos)
		}
		for _, p := range file.Problems {
			check("problem", p.Pos)
		}
	})
}
