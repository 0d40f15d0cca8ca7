package pgsql

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"ledgercheck/internal/input"
)

func TestParseRejectsFilesOverTheLimit(t *testing.T) {
	src := strings.Repeat("-- comment\n", int(input.Migration.Limit)/11+1)
	_, err := Parse("big.sql", []byte(src))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Pos.Line != 1 || !strings.Contains(se.Msg, "at most 4 MiB") {
		t.Fatalf("Parse of %d bytes = %v, want a syntax error at 1:1 naming the limit", len(src), err)
	}
}

// Each meta-command costs a parse up to it; a large file full of them must not hold the gate
// (without the budget, this file takes about half a minute).
func TestManyMetaCommandsInALargeFileAreBounded(t *testing.T) {
	var b strings.Builder
	stmt := strings.Repeat("INSERT INTO public.t (content) VALUES ('x');\n", 500)
	for range 150 {
		b.WriteString(stmt)
		b.WriteString("\\set x 1\n")
	}
	t0 := time.Now()
	_, err := Parse("meta.sql", []byte(b.String()))
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("Parse of %d bytes with 150 meta-commands took %s", b.Len(), d)
	}
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "too many psql meta-commands") {
		t.Errorf("err = %v, want the too-many-meta-commands syntax error", err)
	}
}

// An unterminated string, dollar quote, quoted identifier or comment makes PostgreSQL's parser
// quote the rest of the file after "at or near"; the message keeps one line of it, at most
// maxNear characters, whether the error is the file's, a PL/pgSQL body's or an EXECUTE string's.
func TestParseErrorsQuoteOneLine(t *testing.T) {
	var rest strings.Builder
	for i := range 300 {
		fmt.Fprintf(&rest, "  x := x + %d; -- line %d\n", i, i)
	}
	tail := rest.String()
	for _, tc := range []struct {
		name, src, want string
	}{
		{"dollar quote", "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n" + tail, `unterminated dollar-quoted string at or near "$$…"`},
		{"string", "SELECT 'abc\n" + tail, `unterminated quoted string at or near "'abc…"`},
		{"identifier", "SELECT \"abc\n" + tail, `unterminated quoted identifier at or near ""abc…"`},
		{"comment", "SELECT 1; /* abc\n" + tail, `unterminated /* comment at or near "/* abc…"`},
		{"long line", "SELECT '" + strings.Repeat("y", 5000), `unterminated quoted string at or near "'` + strings.Repeat("y", maxNear-1) + `…"`},
		{"in a PL/pgSQL body", "CREATE FUNCTION public.f() RETURNS int LANGUAGE plpgsql AS $$\nDECLARE x int := 0;\nBEGIN\n  x := 'abc;\n" + tail + "END $$;\n",
			`in the PL/pgSQL body of function public.f: unterminated quoted string at or near "'abc;…"`},
		{"in an EXECUTE string", "DO $$\nBEGIN\n  EXECUTE 'SELECT $q$abc ' || '\n" + tail + "';\nEND $$;\n",
			`the SQL string passed to EXECUTE does not parse: unterminated dollar-quoted string at or near "$q$abc …"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("x.sql", []byte(tc.src))
			var msg string
			var se *SyntaxError
			switch {
			case errors.As(err, &se):
				msg = se.Msg
			case err == nil && len(f.Problems) == 1:
				msg = f.Problems[0].Msg
			default:
				t.Fatalf("Parse = %v, want one syntax error or problem", err)
			}
			if msg != tc.want {
				t.Errorf("message %q\nwant    %q", msg, tc.want)
			}
		})
	}
}
