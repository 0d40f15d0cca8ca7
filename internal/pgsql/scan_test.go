package pgsql

import (
	"fmt"
	"os"
	"reflect"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// tricky are inputs where a scanner that gets strings, quoted identifiers, dollar quotes or
// comments wrong sees parentheses, commas or semicolons that are not there.
var tricky = []string{
	`SELECT 'a;(b' || E'c\';)' || 'd''e;' FROM "t;(" WHERE x = $1;`,
	`SELECT $$;($$, $tag$ $$ ; ( $tag$, $a$b$ ; $a$; SELECT a$b$c, $1;`,
	"SELECT 1 /* a /* nested ; */ ( */ , 2 -- ; (\n; SELECT 3;",
	`SELECT U&'d\0061t;a' UESCAPE '\', U&"d;(" , B'101', X'1F', N'n;';`,
	"SELECT 1.5e-3, .5, 1..2, 0x1F, 1_000, a.b, t.*, x::int, y := 1;",
	"SELECT 1 +-/**/2, 3 --4\n, 5 @- 6, 7*/*c*/8;",
	"CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1; SELECT (2'; SELECT ARRAY[1,(2)][1];",
	"SELECT e'\\\\', 'x' 'y', \"a\"\"b;\", $q$it's$q$;",
}

// structure lists the tokens that decide statements and nesting (parentheses, brackets,
// commas, semicolons) and the comments, as offsets.
func structure(src string) []string {
	var out []string
	s := scanner{src: src}
	for t := s.next(); t.kind != tokEOF; t = s.next() {
		switch {
		case t.kind == tokComment:
			out = append(out, fmt.Sprintf("comment %d-%d", t.start, t.end))
		case t.kind == tokPunct && t.end == t.start+1 && src[t.start] != '.' && src[t.start] != ':':
			out = append(out, fmt.Sprintf("%c %d", src[t.start], t.start))
		}
	}
	return out
}

// pgStructure is [structure] as PostgreSQL's scanner sees it.
func pgStructure(t *testing.T, src string) ([]string, bool) {
	res, err := pg_query.Scan(src)
	if err != nil {
		return nil, false
	}
	var out []string
	for _, tok := range res.GetTokens() {
		switch tok.Token {
		case pg_query.Token_SQL_COMMENT, pg_query.Token_C_COMMENT:
			out = append(out, fmt.Sprintf("comment %d-%d", tok.Start, tok.End))
		case pg_query.Token_ASCII_40, pg_query.Token_ASCII_41, pg_query.Token_ASCII_44, pg_query.Token_ASCII_59, pg_query.Token_ASCII_91, pg_query.Token_ASCII_93:
			out = append(out, fmt.Sprintf("%c %d", src[tok.Start], tok.Start))
		}
	}
	return out, true
}

// The scanner finds the same parentheses, brackets, commas, semicolons and comments as
// PostgreSQL's, in every SQL file of the repository and in the tricky cases.
func TestScannerAgreesWithPostgres(t *testing.T) {
	files := sqlFiles(t, "../../testdata/*/*/*.sql", "../../testdata/fixtures/*.sql", "../../migrations/*.sql", "../../migrations/*/*.sql", "testdata/*/*.sql")
	srcs := map[string]string{}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs[p] = string(b)
	}
	for i, s := range tricky {
		if _, ok := pgStructure(t, s); !ok {
			t.Errorf("tricky case %d does not scan", i)
		}
		srcs[fmt.Sprintf("tricky case %d", i)] = s
	}
	for name, src := range srcs {
		want, ok := pgStructure(t, src)
		if !ok {
			continue
		}
		if got := structure(src); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the scanner sees\n%v\nPostgreSQL's sees\n%v", name, got, want)
		}
	}
}

// FuzzScanner compares the scanner with PostgreSQL's on any input PostgreSQL's scans and
// [Parse] reads (UTF-8 without NUL bytes).
func FuzzScanner(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if indexInvalid(src) >= 0 {
			return
		}
		want, ok := pgStructure(t, src)
		if !ok {
			return
		}
		if got := structure(src); !reflect.DeepEqual(got, want) {
			t.Fatalf("the scanner sees\n%v\nPostgreSQL's sees\n%v", got, want)
		}
	})
}
