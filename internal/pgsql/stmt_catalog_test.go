package pgsql

import "testing"

// TestCatalogStatementsNameTheirObjects: every statement of the catalog family, and the
// DefineStmt kinds and DROPs of the same objects, names its object as internal/locate keys it:
// a cast by its types as format_type prints them without schema, an operator unquoted.
func TestCatalogStatementsNameTheirObjects(t *testing.T) {
	src := `CREATE CAST (varchar[] AS app."Mood") WITH INOUT;
CREATE CAST (int AS public.mark) WITH FUNCTION public.to_mark(int);
DROP CAST IF EXISTS (timestamptz AS mark);
COMMENT ON CAST (int AS public.mark) IS 'm';
CREATE STATISTICS IF NOT EXISTS app.t_ab ON a, b FROM app.t;
ALTER STATISTICS app.t_ab SET STATISTICS 10;
DROP STATISTICS app.t_ab;
CREATE EVENT TRIGGER watch ON ddl_command_end EXECUTE FUNCTION public.f();
ALTER EVENT TRIGGER watch DISABLE;
DROP EVENT TRIGGER watch;
CREATE PUBLICATION pub FOR TABLE app.t, u WITH (publish = 'insert');
ALTER PUBLICATION supabase_realtime ADD TABLE app.t;
CREATE OPERATOR app.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq);
ALTER OPERATOR app.=== (int, int) SET (RESTRICT = eqsel);
DROP OPERATOR app.=== (int, int);
CREATE COLLATION app.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
ALTER COLLATION app.ci REFRESH VERSION;
CREATE TEXT SEARCH CONFIGURATION app.cfg (COPY = english);
ALTER TEXT SEARCH CONFIGURATION app.cfg ALTER MAPPING FOR asciiword WITH simple;
DROP TEXT SEARCH CONFIGURATION app.cfg;
CREATE TEXT SEARCH DICTIONARY app.words (TEMPLATE = simple, STOPWORDS = english);
COMMENT ON TEXT SEARCH DICTIONARY app.words IS 'w';
DROP TEXT SEARCH DICTIONARY app.words;
`
	f, err := Parse("m.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		verb    Verb
		tag     string
		objects string // Object.String of each, joined by "; "
	}{
		{VerbCreate, "CREATE CAST", `cast (character varying[] AS "Mood")`},
		{VerbCreate, "CREATE CAST", "cast (integer AS mark)"},
		{VerbDrop, "DROP CAST", "cast (timestamp with time zone AS mark)"},
		{VerbComment, "COMMENT ON CAST", "cast (integer AS mark)"},
		{VerbCreate, "CREATE STATISTICS", "statistics app.t_ab; table app.t"},
		{VerbAlter, "ALTER STATISTICS", "statistics app.t_ab"},
		{VerbDrop, "DROP STATISTICS", "statistics app.t_ab"},
		{VerbCreate, "CREATE EVENT TRIGGER", "event trigger watch"},
		{VerbAlter, "ALTER EVENT TRIGGER", "event trigger watch"},
		{VerbDrop, "DROP EVENT TRIGGER", "event trigger watch"},
		{VerbCreate, "CREATE PUBLICATION", "publication pub; table app.t; table public.u"},
		{VerbAlter, "ALTER PUBLICATION", "publication supabase_realtime"},
		{VerbCreate, "CREATE OPERATOR", "operator app.==="},
		{VerbAlter, "ALTER OPERATOR", "operator app.==="},
		{VerbDrop, "DROP OPERATOR", "operator app.==="},
		{VerbCreate, "CREATE COLLATION", "collation app.ci"},
		{VerbAlter, "ALTER COLLATION", "collation app.ci"},
		{VerbCreate, "CREATE TEXT SEARCH CONFIGURATION", "text search configuration app.cfg"},
		{VerbAlter, "ALTER TEXT SEARCH CONFIGURATION", "text search configuration app.cfg"},
		{VerbDrop, "DROP TEXT SEARCH CONFIGURATION", "text search configuration app.cfg"},
		{VerbCreate, "CREATE TEXT SEARCH DICTIONARY", "text search dictionary app.words"},
		{VerbComment, "COMMENT ON TEXT SEARCH DICTIONARY", "text search dictionary app.words"},
		{VerbDrop, "DROP TEXT SEARCH DICTIONARY", "text search dictionary app.words"},
	}
	if len(f.Ops) != len(want) {
		t.Fatalf("%d ops, want %d", len(f.Ops), len(want))
	}
	for i, w := range want {
		op := f.Ops[i]
		var objs string
		for j, o := range op.Objects {
			if j > 0 {
				objs += "; "
			}
			objs += o.String()
		}
		if op.Verb != w.verb || op.Tag != w.tag || objs != w.objects {
			t.Errorf("line %d: %s %q %q; want %s %q %q", i+1, op.Verb, op.Tag, objs, w.verb, w.tag, w.objects)
		}
	}
}
