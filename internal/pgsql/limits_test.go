package pgsql

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/pgsql/pgsqltest"
)

func TestParseRejectsFilesOverTheLimit(t *testing.T) {
	src := strings.Repeat("-- comment\n", int(input.Migration.Limit)/11+1)
	_, err := Parse("big.sql", []byte(src))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Pos.Line != 1 || !strings.Contains(se.Msg, "at most 4 MiB") {
		t.Fatalf("Parse of %d bytes = %v, want a syntax error at 1:1 naming the limit", len(src), err)
	}
}

// Each meta-command costs a second parse of its batch, not of the file up to it: a large file
// full of them is read with bounded work (parsing the file up to each of them, as Parse once did,
// hands pg_query 250 MB here), and past maxMetaCommands Parse gives up.
func TestManyMetaCommandsInALargeFileAreBounded(t *testing.T) {
	file := func(metas, stmts int) []byte {
		var b strings.Builder
		stmt := strings.Repeat("INSERT INTO public.t (content) VALUES ('x');\n", stmts)
		for range metas {
			b.WriteString(stmt)
			b.WriteString("\\set x 1\n")
		}
		return []byte(b.String())
	}
	src := file(150, 500)
	f, err := Parse("meta.sql", src)
	if err != nil || len(f.MetaCommands) != 150 || len(f.Stmts) != 150*500 {
		t.Fatalf("Parse = %v; want the 150 meta-commands blanked and the %d statements read", err, 150*500)
	}
	if bound := len(src) + 150*2*batchBytes; f.parseBytes > bound {
		t.Errorf("Parse handed pg_query %d bytes for a file of %d; want at most %d", f.parseBytes, len(src), bound)
	}
	_, err = Parse("meta.sql", file(maxMetaCommands+1, 10))
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

var nestingMsg = regexp.MustCompile(`(^|: )expression nesting of (\d+) exceeds ledgercheck's limit of 2000; split the expression or the statement$`)

// Each construct that nests is parsed up to the limit, by PostgreSQL's parser, and refused one
// level beyond it, before the parser sees it (which at 40,000 levels crashes the process), with
// one line at the statement.
func TestNestingLimit(t *testing.T) {
	for _, tc := range pgsqltest.NestingCases() {
		t.Run(tc.Name, func(t *testing.T) {
			head := "-- deep\n\nSELECT 1;\n"
			under := head + tc.SQL(tc.Under) + ";\nNOTIFY pgrst, 'reload schema';\n"
			if f, err := Parse("x.sql", []byte(under)); err != nil || len(f.Stmts) != 3 {
				t.Fatalf("%d levels: Parse = %v, want the 3 statements parsed", tc.Under, err)
			}
			over := head + tc.SQL(tc.Under+1) + ";\nNOTIFY pgrst, 'reload schema';\n"
			_, err := Parse("x.sql", []byte(over))
			var se *SyntaxError
			if !errors.As(err, &se) || !se.TooComplex || se.Pos != (finding.Position{File: "x.sql", Line: 4, Col: 1}) || !nestingMsg.MatchString(se.Msg) {
				t.Fatalf("%d levels: Parse = %v, want a too-complex error at x.sql:4:1", tc.Under+1, err)
			}
		})
	}
}

// The limit holds for SQL inside a file too: a PL/pgSQL expression, a SQL function body, a
// literal EXECUTE string. Each is a too-complex problem at the statement inside, and the rest of
// the file is analysed.
func TestNestingLimitInBodies(t *testing.T) {
	chain := func(n int) string { return "1" + strings.Repeat("+1", n-1) }
	for _, tc := range []struct {
		name string
		src  func(n int) string
	}{
		{"PL/pgSQL expression", func(n int) string {
			return "CREATE FUNCTION public.f() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n  RETURN " + chain(n) + ";\nEND $$;\n"
		}},
		{"SQL body", func(n int) string {
			return "CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS $$\n  SELECT " + chain(n) + "\n$$;\n"
		}},
		{"EXECUTE string", func(n int) string {
			return "DO $$\nBEGIN\n  EXECUTE 'SELECT " + chain(n) + "';\nEND $$;\n"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{2001, 2002} {
				src := tc.src(n) + "NOTIFY pgrst, 'reload schema';\n"
				f, err := Parse("x.sql", []byte(src))
				if err != nil {
					t.Fatalf("%d terms: Parse = %v; the file itself is shallow", n, err)
				}
				var deep []Problem
				for _, p := range f.Problems {
					if p.TooComplex {
						deep = append(deep, p)
					}
				}
				at := f.Pos(strings.Index(src, "1+1"))
				switch {
				case n == 2001 && len(f.Problems) != 0:
					t.Errorf("%d terms: problems %+v, want none", n, f.Problems)
				case n == 2002 && (len(deep) != 1 || deep[0].Pos.Line != at.Line || !nestingMsg.MatchString(deep[0].Msg)):
					t.Errorf("%d terms: problems %+v, want one too-complex problem on line %d", n, f.Problems, at.Line)
				}
				if len(f.Stmts) != 2 || f.Ops[len(f.Ops)-1].Verb != VerbNotify {
					t.Errorf("%d terms: the rest of the file was not analysed", n)
				}
			}
		})
	}
}

// PL/pgSQL's own grammar bounds the nesting of blocks and IFs (at 3,330, as the server's does):
// the deepest parses, one more is a body that does not compile, never a crash.
func TestPlPgSQLNestingIsBoundedByItsGrammar(t *testing.T) {
	nest := func(n int) string {
		return "DO $$\nBEGIN\n" + strings.Repeat("IF true THEN\n", n) + "NULL;\n" + strings.Repeat("END IF;\n", n) + "END $$;\n"
	}
	for n, want := range map[int]string{3329: "", 3330: "memory exhausted"} {
		f, err := Parse("x.sql", []byte(nest(n)))
		if err != nil {
			t.Fatalf("%d IFs: Parse = %v", n, err)
		}
		got := ""
		if len(f.Problems) == 1 {
			got = f.Problems[0].Msg
		}
		if want == "" && len(f.Problems) != 0 || want != "" && !strings.Contains(got, want) {
			t.Errorf("%d IFs: problems %+v, want %q", n, f.Problems, want)
		}
	}
}

// Normalizing a function body has a limit of its own: pg_query's deparser, which crashes at
// about 4,400 terms (1,100 on 2 MiB thread stacks), gets at most 501; deeper bodies fall back to
// tokens.
func TestNormalizeNestingLimit(t *testing.T) {
	for n, want := range map[int]string{maxDeparseNesting + 1: NormSQL, maxDeparseNesting + 2: NormTokens, 40000: NormTokens} {
		body := "SELECT 1" + strings.Repeat(" + 1", n-1)
		_, method, err := NormalizeFunctionBody(FunctionBody{Language: "sql", Result: "integer", Body: body})
		if method != want || (want == NormTokens) != (err != nil) {
			t.Errorf("%d terms: method %s, err %v; want %s", n, method, err, want)
		}
	}
}

// checkNesting does not scan SQL no longer than its limit: the estimate of a statement is at
// most its length in bytes. Checked on every statement of the repository's SQL and on the
// densest nestings.
func TestNestingEstimateIsAtMostTheLength(t *testing.T) {
	var stmts []string
	for _, p := range sqlFiles(t, repoSQL...) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, Statements(string(src))...)
	}
	for _, tc := range pgsqltest.NestingCases() {
		for _, n := range []int{1, 2, 3, 10, 100} {
			stmts = append(stmts, tc.SQL(n))
		}
	}
	for _, dense := range []string{"(", "[", "-", "+-", "a+", "(select", "(SELECT(", "case ", "casecase", "a join b ", "x::int", "not ", "in ", "is ", "at ", "union select ", "((select 1)", "ARRAY["} {
		for _, n := range []int{1, 2, 7, 50} {
			stmts = append(stmts, strings.Repeat(dense, n))
		}
	}
	for _, st := range stmts {
		_, err := nesting(st, 0, nil)
		var ne *nestingError
		if errors.As(err, &ne) && ne.Nesting > len(st) {
			t.Errorf("nesting of %q is %d, more than its %d bytes", st, ne.Nesting, len(st))
		}
	}
}
