package pgsql

import (
	"encoding/json"
	"github.com/ledgercheck/ledgercheck/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// opAt finds the op with the given tag and context.
func opAt(t *testing.T, f *File, tag string, ctx Context) *Op {
	t.Helper()
	for i := range f.Ops {
		if f.Ops[i].Tag == tag && f.Ops[i].Context == ctx {
			return &f.Ops[i]
		}
	}
	t.Fatalf("no %s op %v among %d ops", tag, ctx, len(f.Ops))
	return nil
}

// TestBodyPositions pins the mapping of positions inside dollar-quoted, multi-line bodies back
// to the file, with multi-byte characters before and inside the body.
func TestBodyPositions(t *testing.T) {
	src := "-- Grüße, ünïcödé\nSELECT 'ö';\n" +
		"CREATE OR REPLACE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $body$\n" + // line 3
		"DECLARE\n" +
		"  v text := 'é';\n" + // line 5
		"BEGIN\n" +
		"  -- ß\n" +
		"  IF v = 'é' THEN\n" + // line 8
		"    DELETE FROM t\n" + // line 9
		"     WHERE x = 'ü';\n" +
		"  END IF;\n" +
		"  PERFORM pg_read_file('ä');\n" + // line 12
		"  EXECUTE 'ALTER TABLE ' || 'thoughts ADD COLUMN c int';\n" + // line 13
		"END\n$body$;\n" +
		"DO 'BEGIN DELETE FROM \"Q\"\"t\"; END';\n" // line 16: a single-quoted body with '' escapes
	f, err := Parse("m.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	del := opAt(t, f, "DELETE", InFunction)
	if got := del.Pos; got.Line != 9 || got.Col != 5 || !del.HasWhere() {
		t.Errorf("DELETE at %v (where=%v), want 9:5 with WHERE", got, del.HasWhere())
	}
	var cond *Op // the IF condition, re-parsed as SELECT v = 'é'
	for i := range f.Ops {
		if f.Ops[i].Tag == "SELECT" && f.Ops[i].Pos.Line == 8 {
			cond = &f.Ops[i]
		}
	}
	if cond == nil || cond.Pos.Col != 6 {
		t.Errorf("IF condition at %v, want 8:6", cond)
	}
	var call *Call
	for i := range f.Ops {
		for j := range f.Ops[i].Calls {
			if f.Ops[i].Calls[j].Name.Name == "pg_read_file" {
				call = &f.Ops[i].Calls[j]
			}
		}
	}
	if call == nil || call.Pos.Line != 12 || call.Pos.Col != 11 {
		t.Errorf("pg_read_file call at %v, want 12:11", call)
	}
	alter := opAt(t, f, "ALTER TABLE", InExecute)
	if o := alter.Object(); o.Name != (Name{"public", "thoughts"}) || o.Pos.Line != 13 || o.Pos.Col != 30 {
		t.Errorf("EXECUTE'd ALTER TABLE on %v at %v, want public.thoughts at 13:30", o.Name, o.Pos)
	}
	if len(alter.AlterCmds()) != 1 || alter.AlterCmds()[0].Pos.Line != 13 || alter.AlterCmds()[0].Pos.Col != 50 {
		t.Errorf("ADD COLUMN at %+v, want 13:50", alter.AlterCmds())
	}
	ex := opAt(t, f, "EXECUTE", InFunction)
	if ex.Pos.Line != 13 || ex.Pos.Col != 3 || !ex.Dynamic().Literal {
		t.Errorf("EXECUTE at %v literal=%v, want 13:3 literal", ex.Pos, ex.Dynamic().Literal)
	}
	d := opAt(t, f, "DELETE", InDo)
	if o := d.Object(); o.Name.Name != `Q"t` || o.Pos.Line != 16 || o.Pos.Col != 23 {
		t.Errorf("DO-block DELETE on %q at %v, want Q\"t at 16:23", o.Name.Name, o.Pos)
	}
}

func TestNamesFoldAndSearchPath(t *testing.T) {
	src := `SET search_path TO "Ledger", public;
ALTER TABLE "public"."Thoughts" ENABLE ROW LEVEL SECURITY;
ALTER TABLE Thoughts ENABLE ROW LEVEL SECURITY;
RESET search_path;
ALTER TABLE Thoughts ENABLE ROW LEVEL SECURITY;
SET search_path = '';
`
	f, err := Parse("m.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name      Name
		qualified bool
		path      string
	}{
		{Name{"public", "Thoughts"}, true, "Ledger,public"},
		{Name{"Ledger", "thoughts"}, false, "Ledger,public"},
		{Name{"public", "thoughts"}, false, "public"},
	}
	var alters []*Op
	for i := range f.Ops {
		if f.Ops[i].Verb == VerbAlter {
			alters = append(alters, &f.Ops[i])
		}
	}
	if len(alters) != len(want) {
		t.Fatalf("got %d ALTERs, want %d", len(alters), len(want))
	}
	for i, w := range want {
		o := alters[i].Object()
		if o.Name != w.name || o.Qualified != w.qualified || strings.Join(alters[i].SearchPath, ",") != w.path {
			t.Errorf("ALTER %d: %v qualified=%v path=%v, want %v %v %v", i, o.Name, o.Qualified, alters[i].SearchPath, w.name, w.qualified, w.path)
		}
	}
}

func TestFunctionAttributesAndGrants(t *testing.T) {
	src := `CREATE OR REPLACE FUNCTION s.f(a vector(3)) RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, extensions AS $$ BEGIN RETURN NEW; END $$;
REVOKE EXECUTE ON FUNCTION s.f(vector) FROM PUBLIC;
GRANT SELECT, INSERT ON TABLE t1, s.t2 TO service_role, "Anon";
NOTIFY pgrst, 'reload schema';
CREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t1 (a);
`
	f, err := Parse("m.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	fn := opAt(t, f, "CREATE FUNCTION", TopLevel)
	if fn.Func() == nil || !fn.Func().SecurityDefiner || !fn.Func().PinnedPath || fn.Func().Language != "plpgsql" || !fn.Func().ReturnsTrigger ||
		strings.Join(fn.Func().SearchPath, ",") != "public,extensions" || !fn.OrReplace || fn.Object().Name != (Name{"s", "f"}) {
		t.Errorf("function = %+v %+v", fn.Func(), fn.Object())
	}
	if fn.Func().BodyPos.Line != 2 || fn.Func().BodyPos.Col != 43 {
		t.Errorf("body at %v, want 2:43", fn.Func().BodyPos)
	}
	rv := opAt(t, f, "REVOKE", TopLevel)
	if rv.Grant().Grantees[0] != "public" || rv.Grant().Privileges[0] != "execute" || rv.Object().Kind != KindFunction {
		t.Errorf("revoke = %+v %v", rv.Grant(), rv.Object())
	}
	g := opAt(t, f, "GRANT", TopLevel)
	if strings.Join(g.Grant().Privileges, ",") != "select,insert" || strings.Join(g.Grant().Grantees, ",") != "service_role,Anon" || len(g.Objects) != 2 || g.Objects[1].Name != (Name{"s", "t2"}) {
		t.Errorf("grant = %+v %v", g.Grant(), g.Objects)
	}
	n := opAt(t, f, "NOTIFY", TopLevel).Notify()
	if n == nil || n.Channel != "pgrst" || n.Payload != "reload schema" {
		t.Errorf("notify = %+v", n)
	}
	ix := opAt(t, f, "CREATE INDEX", TopLevel)
	if !ix.Concurrently || !ix.IfNotExists || ix.Object().Table != (Name{"public", "t1"}) {
		t.Errorf("index = %+v", ix)
	}
	if len(f.VectorTypes) != 1 || f.VectorTypes[0].Dim != 3 || f.VectorTypes[0].Pos.Col != 41 {
		t.Errorf("vector types = %+v", f.VectorTypes)
	}
}

func TestMetaCommandsAreRecordedNotFatal(t *testing.T) {
	src := "\\set ON_ERROR_STOP on\nSELECT 1;\n  \\i other.sql\nSELECT 2;\n"
	f, err := Parse("m.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.MetaCommands) != 2 || f.MetaCommands[1].Text != `\i other.sql` || f.MetaCommands[1].Pos.Line != 3 || f.MetaCommands[1].Pos.Col != 3 {
		t.Errorf("meta-commands = %+v", f.MetaCommands)
	}
	if len(f.Stmts) != 2 || f.Stmts[1].Pos.Line != 4 {
		t.Errorf("statements = %+v", f.Stmts)
	}
	// A backslash elsewhere is still a syntax error.
	if _, err := Parse("m.sql", []byte("SELECT 1 \\x;")); err == nil {
		t.Error("want a syntax error for a backslash inside a statement")
	}
}

// TestPlpgsqlJSONShape pins the parts of pg_query's experimental PL/pgSQL JSON that the body
// walker relies on (statement kinds, lineno, PLpgSQL_expr query/parseMode, dynamic EXECUTE),
// against testdata/plpgsql/*.sql → *.json.
func TestPlpgsqlJSONShape(t *testing.T) {
	files, _ := filepath.Glob("testdata/plpgsql/*.sql")
	if len(files) == 0 {
		t.Fatal("no testdata/plpgsql/*.sql")
	}
	for _, in := range files {
		src, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		js, err := pg_query.ParsePlPgSqlToJSON(string(src))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var v any
		if err := json.Unmarshal([]byte(js), &v); err != nil {
			t.Fatal(err)
		}
		got, _ := json.MarshalIndent(v, "", " ")
		got = append(got, '\n')
		goldenPath := strings.TrimSuffix(in, ".sql") + ".json"
		// A change here means pg_query's PL/pgSQL JSON changed: the body walker (body.go) may
		// need updating.
		golden.Check(t, goldenPath, got)
	}
}

// TestAggregateOperatorAndCastSignatures: an aggregate's object carries its identity argument
// types (new and old syntax), an operator's its operand types (the right one alone for a prefix
// operator), and CREATE CAST its types and function.
func TestAggregateOperatorAndCastSignatures(t *testing.T) {
	src := `CREATE AGGREGATE public.agg(integer, text) (SFUNC = f, STYPE = int);
CREATE AGGREGATE old (BASETYPE = oid[], SFUNC = f, STYPE = int);
CREATE AGGREGATE star(*) (SFUNC = f, STYPE = int);
CREATE OPERATOR public.= (LEFTARG = oid, RIGHTARG = integer, FUNCTION = f);
CREATE OPERATOR - (RIGHTARG = text[], FUNCTION = f);
CREATE CAST (public.mood AS json) WITH FUNCTION public.mood_json(public.mood) AS IMPLICIT;
CREATE CAST (public.mood AS text) WITH INOUT;
`
	f, err := Parse("m.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range f.Ops {
		o := op.Object()
		got = append(got, string(o.Kind)+" "+o.Name.Schema+"."+o.Name.Name+"("+strings.Join(o.Args, ",")+")")
	}
	want := []string{"function public.agg(int4,text)", "function public.old(oid[])", "function public.star()",
		"operator public.=(oid,int4)", "operator public.-(text[])", "cast .(mood AS json)()", "cast .(mood AS text)()"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	casts := []*Cast{f.Ops[5].Cast(), f.Ops[6].Cast()}
	if c := casts[0]; c == nil || c.Function != (Name{"public", "mood_json"}) || !c.Implicit || f.Ops[5].Verb != VerbCreate || f.Ops[5].Tag != "CREATE CAST" {
		t.Errorf("cast = %+v", c)
	}
	if c := casts[1]; c == nil || c.Function != (Name{}) || c.Implicit {
		t.Errorf("cast WITH INOUT = %+v", c)
	}
}
