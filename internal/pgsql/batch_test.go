package pgsql

import (
	"os"
	"reflect"
	"testing"
)

// Parsing in batches gives what parsing the whole file at once gives: the same statements,
// positions, ops, problems, meta-commands, comments and signatures, and the same errors, for
// every SQL file of the repository cut after every statement.
func TestBatchesParseAsTheWholeFile(t *testing.T) {
	files := sqlFiles(t, "../../testdata/*/*/*.sql", "../../testdata/fixtures/*.sql", "../../migrations/*.sql", "../../migrations/*/*.sql", "testdata/*/*.sql")
	inline := map[string]string{
		"begin atomic":      "CREATE FUNCTION public.f(x int) RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT CASE WHEN x > 0 THEN 1 END;\n  SELECT 2;\nEND;\nSELECT 3;\n",
		"meta-commands":     "\\set ON_ERROR_STOP on\nSELECT 1;\n  \\i other.sql\nSELECT 2;\n",
		"copy from stdin":   "CREATE TABLE IF NOT EXISTS public.t (id int);\nCOPY public.t FROM STDIN;\n1\n2;\n\\.\nSELECT 1;\n",
		"late syntax error": "SELECT 1;\nSELECT 2;\nSELEC 3;\nSELECT 4;\n",
		"unterminated":      "SELECT 1;\nSELECT 'a;\nSELECT 2;\n",
	}
	parseWith := func(src []byte, batch int) (*File, error) {
		saved := batchBytes
		defer func() { batchBytes = saved }()
		batchBytes = batch
		return Parse("f.sql", src)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inline[p] = string(b)
	}
	for p, s := range inline {
		src := []byte(s)
		whole, werr := parseWith(src, len(src)+1)
		cut, cerr := parseWith(src, 1)
		if !reflect.DeepEqual(werr, cerr) {
			t.Errorf("%s: whole %v, in batches %v", p, werr, cerr)
			continue
		}
		if werr != nil {
			continue
		}
		for _, c := range []struct {
			what      string
			whole, in any
		}{
			{"statements", whole.Stmts, cut.Stmts},
			{"ops", whole.Ops, cut.Ops},
			{"problems", whole.Problems, cut.Problems},
			{"vector types", whole.VectorTypes, cut.VectorTypes},
			{"meta-commands", whole.MetaCommands, cut.MetaCommands},
			{"comments", whole.Comments(), cut.Comments()},
			{"signatures", whole.Signatures(), cut.Signatures()},
		} {
			if !reflect.DeepEqual(c.whole, c.in) {
				t.Errorf("%s: the %s differ when the file is parsed in batches", p, c.what)
			}
		}
	}
}

// Statements cuts where the batches may be cut, and the statements it returns parse as the file
// does, one by one.
func TestStatementsAreTheFilesStatements(t *testing.T) {
	src := "-- head\nSELECT 1;\nCREATE FUNCTION f() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT 1;\n  SELECT CASE WHEN true THEN 2 END;\nEND;\n" +
		"DO $$ BEGIN PERFORM 1; END $$;\nSELECT ';', (SELECT 1) -- ;\n;\n/* ; */ ;  \n"
	got := Statements(src)
	want := []string{"-- head\nSELECT 1", "\nCREATE FUNCTION f() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT 1;\n  SELECT CASE WHEN true THEN 2 END;\nEND",
		"\nDO $$ BEGIN PERFORM 1; END $$", "\nSELECT ';', (SELECT 1) -- ;\n"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Statements = %q\nwant %q", got, want)
	}
	f, err := Parse("x.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range got {
		g, err := Parse("x.sql", []byte(st))
		if err != nil || len(g.Stmts) != 1 || g.Stmts[0].Text != f.Stmts[i].Text {
			t.Errorf("statement %d: %q parses as %v, %v", i, st, g, err)
		}
	}
}
