package pgsql

import (
	"errors"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseStatementPositions(t *testing.T) {
	src := "-- header\n\n  CREATE TABLE a (id int);\n/* c */ SELECT 'é';  select\n 1"
	f, err := Parse("m.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		text      string
		line, col int
	}{
		{"CREATE TABLE a (id int)", 3, 3},
		{"SELECT 'é'", 4, 9},
		{"select\n 1", 4, 22},
	}
	if len(f.Stmts) != len(want) {
		t.Fatalf("got %d statements, want %d", len(f.Stmts), len(want))
	}
	for i, w := range want {
		s := f.Stmts[i]
		if s.Text != w.text || s.Pos.Line != w.line || s.Pos.Col != w.col {
			t.Errorf("stmt %d = %q at %d:%d, want %q at %d:%d", i, s.Text, s.Pos.Line, s.Pos.Col, w.text, w.line, w.col)
		}
	}
}

func TestParseSyntaxErrorPosition(t *testing.T) {
	src := "SELECT 'ü';\nCREATE TABLE t (id int,,);\n"
	_, err := Parse("bad.sql", []byte(src))
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("want *SyntaxError, got %v", err)
	}
	if se.Pos.Line != 2 || se.Pos.Col != 24 {
		t.Errorf("error at %s, want bad.sql:2:24", se.Pos)
	}
}

func TestParseRejectsNULAndInvalidUTF8(t *testing.T) {
	for _, src := range []string{"SELECT 1;\nSELECT '\x00';", "SELECT 1;\nSELECT '\xff';"} {
		_, err := Parse("x.sql", []byte(src))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Pos.Line != 2 || se.Pos.Col != 9 {
			t.Errorf("Parse(%q) = %v, want a syntax error at 2:9", src, err)
		}
	}
}

// Pos counts columns in characters, as utf8.RuneCountInString of the line up to the offset
// would, at every offset of a file with multibyte characters, long lines (beyond the blocks of
// its index) and offsets inside a character; and in the same time whatever the line's length.
func TestPosCountsCharacters(t *testing.T) {
	src := "SELECT 'é€𝄞';\n" + strings.Repeat("x€", 700) + "\n\n" + strings.Repeat("ab", 600) + "é\nlast"
	f := &File{Name: "p.sql", Src: src}
	f.indexLines()
	ls := 0
	for off := 0; off <= len(src); off++ {
		if off > 0 && src[off-1] == '\n' {
			ls = off
		}
		want := finding.Position{File: "p.sql", Line: strings.Count(src[:off], "\n") + 1, Col: utf8.RuneCountInString(src[ls:off]) + 1}
		if got := f.Pos(off); got != want {
			t.Fatalf("Pos(%d) = %v, want %v", off, got, want)
		}
	}
	ascii := &File{Name: "a.sql", Src: strings.Repeat("SELECT 1; ", 1000)}
	ascii.indexLines()
	if ascii.multibyte != nil || ascii.Pos(9995) != (finding.Position{File: "a.sql", Line: 1, Col: 9996}) {
		t.Errorf("ASCII file: index %v, Pos(9995) = %v", ascii.multibyte != nil, ascii.Pos(9995))
	}
}
