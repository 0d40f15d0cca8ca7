package locate

import (
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

const src = `CREATE TABLE public.t (id int PRIMARY KEY, n int DEFAULT 0);
ALTER TABLE public.t ADD COLUMN note text;
ALTER TABLE public.t ENABLE ROW LEVEL SECURITY;
CREATE POLICY p ON public.t FOR SELECT TO authenticated USING (true);
CREATE VIEW public.v AS SELECT id FROM public.t;
CREATE FUNCTION public.f(a int, b text) RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
CREATE FUNCTION public.bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE public.t SET n = n + 1 WHERE id = NEW.id;
  RETURN NEW;
END $$;
CREATE TRIGGER trg AFTER INSERT ON public.t FOR EACH ROW EXECUTE FUNCTION public.bump();
GRANT SELECT ON public.v TO service_role;
COMMENT ON VIEW public.v IS 'v';
GRANT SELECT ON public.v TO anon;
GRANT EXECUTE ON FUNCTION public.f TO anon;
UPDATE public.t SET n = 0 WHERE n IS NULL;
`

func index(t *testing.T, src string) *Index {
	t.Helper()
	f, err := pgsql.Parse("m.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return New(f)
}

func TestStatementFindsTheStatementThatSetTheAttribute(t *testing.T) {
	ix := index(t, src)
	for _, c := range []struct {
		kind, object, attr string
		line               int
	}{
		{"table", "public.t", "", 1},
		{"table", "public.t", "rls", 3},
		{"column", "public.t.note", "", 2},
		{"column", "public.t.n", "default", 1}, // in CREATE TABLE: the table's statement
		{"policy", "p on public.t", "", 4},
		{"view", "public.v", "acl:anon", 15},
		{"view", "public.v", "acl:service_role", 13},
		{"view", "public.v", "acl:authenticated", 5}, // no grant to it: the CREATE
		{"view", "public.v", "comment", 14},
		{"function", "public.f(integer, text)", "", 6},
		{"function", "public.f(integer, text)", "acl:anon", 16}, // GRANT without arguments
		{"trigger", "trg on public.t", "", 12},
	} {
		pos, ok := ix.Statement(c.kind, c.object, c.attr)
		if !ok || pos.Line != c.line || pos.File != "m.sql" {
			t.Errorf("Statement(%s %s, %q) = %v, %v; want line %d", c.kind, c.object, c.attr, pos, ok, c.line)
		}
	}
	if pos, ok := ix.Statement("table", "public.other", ""); ok {
		t.Errorf("Statement of an object the file does not name = %v, want none", pos)
	}
}

func TestChangerPrefersWhatRewritesTheRowsOnEveryRun(t *testing.T) {
	ix := index(t, src)
	pos, what, ok := ix.Changer("public.t")
	if !ok || pos.Line != 17 || what != "UPDATE of public.t" {
		t.Errorf("Changer = %v %q %v, want line 17 (the only UPDATE of the file itself)", pos, what, ok)
	}
	ix = index(t, src+"UPDATE public.t SET n = n + 1;\n")
	if pos, _, _ := ix.Changer("public.t"); pos.Line != 18 {
		t.Errorf("Changer = line %d, want 18: an UPDATE without WHERE changes the rows on every run", pos.Line)
	}
	ix = index(t, "CREATE TABLE public.t (id int);\nCREATE FUNCTION public.bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;\nCREATE TRIGGER trg BEFORE UPDATE ON public.t FOR EACH ROW EXECUTE FUNCTION public.bump();\n")
	if pos, what, _ := ix.Changer("public.t"); pos.Line != 3 || what != "CREATE TRIGGER on public.t" {
		t.Errorf("Changer = line %d %q, want the trigger at line 3", pos.Line, what)
	}
}

func TestReaderFindsTheFunctionAProbeCalls(t *testing.T) {
	ix := index(t, src)
	funcs, rels, err := pgsql.Reads("SELECT * FROM f(1, 'x'), public.v ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	pos, what, ok := ix.Reader(funcs, rels)
	if !ok || pos.Line != 6 || what != "function public.f" {
		t.Errorf("Reader = %v %q %v, want the CREATE FUNCTION at line 6", pos, what, ok)
	}
	_, rels, _ = pgsql.Reads("SELECT * FROM public.v")
	if pos, what, _ := ix.Reader(nil, rels); pos.Line != 5 || what != "view public.v" {
		t.Errorf("Reader = %v %q, want the CREATE VIEW at line 5", pos, what)
	}
}

func TestSplitRef(t *testing.T) {
	for ref, want := range map[string][2]string{
		"table public.t":             {"table", "public.t"},
		"materialized view public.m": {"materialized view", "public.m"},
		"policy p on public.t":       {"policy", "p on public.t"},
	} {
		k, o, ok := SplitRef(ref)
		if !ok || k != want[0] || o != want[1] {
			t.Errorf("SplitRef(%q) = %q, %q, %v", ref, k, o, ok)
		}
	}
}

func TestSetterAndRoleMemberships(t *testing.T) {
	ix := index(t, src+"GRANT ledger_agent TO service_role;\n")
	if pos, ok := ix.Setter("view", "public.v", "acl:anon"); !ok || pos.Line != 15 {
		t.Errorf("Setter acl:anon = %v %v, want line 15", pos, ok)
	}
	if pos, ok := ix.Setter("view", "public.v", "acl:authenticated"); ok {
		t.Errorf("Setter of an acl no statement sets = %v, want none", pos)
	}
	if pos, ok := ix.Statement("role", "service_role", "member_of"); !ok || pos.Line != 18 {
		t.Errorf("Statement member_of = %v %v, want the GRANT of the role at line 18", pos, ok)
	}
}

// An index the server named (CREATE INDEX ON t (c): t_c_idx, t_c_idx1, ...) is found at the
// CREATE INDEX without a name on its table.
func TestUnnamedIndex(t *testing.T) {
	ix := index(t, "CREATE TABLE public.tags (tag text);\nCREATE INDEX ON public.tags (tag);\n")
	if pos, ok := ix.Statement("index", "public.tags_tag_idx1", ""); !ok || pos.Line != 2 {
		t.Errorf("Statement = %v %v, want the CREATE INDEX at line 2", pos, ok)
	}
	if pos, ok := ix.Statement("index", "public.other_tag_idx", ""); ok {
		t.Errorf("an index of another table found at %v", pos)
	}
}

// A column or a named constraint of CREATE TABLE is found at its own definition.
func TestCreateTableColumnsAtTheirLine(t *testing.T) {
	ix := index(t, "CREATE TABLE public.t (\n  id int PRIMARY KEY,\n  n int CONSTRAINT n_positive CHECK (n > 0),\n  CONSTRAINT t_n_unique UNIQUE (n)\n);\n")
	for _, c := range []struct {
		kind, object string
		line, col    int
	}{
		{"column", "public.t.n", 3, 3},
		{"constraint", "n_positive on public.t", 3, 9},
		{"constraint", "t_n_unique on public.t", 4, 3},
		{"constraint", "t_pkey on public.t", 1, 1}, // named by the server: the table's statement
	} {
		if pos, ok := ix.Statement(c.kind, c.object, ""); !ok || pos.Line != c.line || pos.Col != c.col {
			t.Errorf("Statement(%s %s) = %v %v, want %d:%d", c.kind, c.object, pos, ok, c.line, c.col)
		}
	}
}

// TestCatalogKindsAtTheirStatement names each object as introspect does (its identity in a
// snapshot: format_type's types, an operator with its operand types) and expects the statement
// that created or changed it, so that a parity difference of a rule, operator, cast, collation,
// statistics object, aggregate, text search configuration, event trigger or publication points at
// its line.
func TestCatalogKindsAtTheirStatement(t *testing.T) {
	ix := index(t, `CREATE TABLE public.t (a int, b int);
CREATE RULE no_delete AS ON DELETE TO public.t DO INSTEAD NOTHING;
CREATE OPERATOR public.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq);
CREATE TYPE public."Mood" AS ENUM ('up');
CREATE CAST (varchar AS public."Mood") WITH INOUT;
CREATE COLLATION public.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE STATISTICS public.t_ab ON a, b FROM public.t;
CREATE AGGREGATE public.total(int) (SFUNC = int4pl, STYPE = int);
CREATE TEXT SEARCH CONFIGURATION public.cfg (COPY = english);
CREATE EVENT TRIGGER watch ON ddl_command_end EXECUTE FUNCTION public.f();
CREATE PUBLICATION ledger FOR TABLE public.t;
ALTER TEXT SEARCH CONFIGURATION public.cfg ALTER MAPPING FOR asciiword WITH simple;
ALTER PUBLICATION supabase_realtime ADD TABLE public.t;
ALTER STATISTICS public.t_ab SET STATISTICS 50;
ALTER OPERATOR public.=== (int, int) SET (RESTRICT = eqsel);
COMMENT ON CAST (varchar AS public."Mood") IS 'in';
ALTER EVENT TRIGGER watch DISABLE;
CREATE TEXT SEARCH DICTIONARY public.ledger_words (TEMPLATE = simple, STOPWORDS = english);
COMMENT ON TEXT SEARCH DICTIONARY public.ledger_words IS 'the ledger''s words';
`)
	for _, c := range []struct {
		kind, object, attr string
		line               int
	}{
		{"rule", "no_delete on public.t", "definition", 2},
		{"operator", "public.===(integer, integer)", "function", 3},
		{"operator", "public.===(integer, integer)", "restrict", 15},
		{"cast", `(character varying AS public."Mood")`, "method", 5},
		{"cast", `(character varying AS public."Mood")`, "comment", 16},
		{"collation", "public.ci", "locale", 6},
		{"statistics", "public.t_ab", "definition", 7},
		{"statistics", "public.t_ab", "target", 14},
		{"function", "public.total(integer)", "transition", 8},
		{"text search configuration", "public.cfg", "mapping:asciiword", 12},
		{"event trigger", "watch", "enabled", 17},
		{"publication", "ledger", "table:public.t", 11},
		{"publication", "supabase_realtime", "table:public.t", 13},
		{"text search dictionary", "public.ledger_words", "options", 18},
		{"text search dictionary", "public.ledger_words", "comment", 19},
	} {
		pos, ok := ix.Statement(c.kind, c.object, c.attr)
		if !ok || pos.Line != c.line {
			t.Errorf("Statement(%s %s, %q) = %v, %v; want line %d", c.kind, c.object, c.attr, pos, ok, c.line)
		}
		if k, o, ok := SplitRef(c.kind + " " + c.object); !ok || k != c.kind || o != c.object {
			t.Errorf("SplitRef(%s %s) = %q, %q, %v", c.kind, c.object, k, o, ok)
		}
	}
}

// TestSequenceSetterAndCaller: a sequence set back is charged to the ALTER SEQUENCE of it, else to
// the setval naming it, else to any setval; Caller takes the first of its functions the file
// calls, at the top level before a function body, and a call without a schema matches a
// schema-qualified name.
func TestSequenceSetterAndCaller(t *testing.T) {
	ix := index(t, `CREATE TABLE public.t (id bigserial PRIMARY KEY);
CREATE FUNCTION public.ping() RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM net.http_get('https://a.example/'); END $$;
SELECT setval('other_seq', 9);
SELECT setval('"public".t_id_seq', 1, false);
SELECT http_post('https://b.example/', '{}'::jsonb);
ALTER SEQUENCE public.u_seq RESTART;
`)
	for _, c := range []struct {
		seq  string
		line int
		what string
	}{{"public.t_id_seq", 4, "call of setval"}, {"public.u_seq", 6, "ALTER SEQUENCE of public.u_seq"}, {"public.v_seq", 3, "call of setval"}} {
		pos, what, ok := ix.SequenceSetter(c.seq)
		if !ok || pos.Line != c.line || what != c.what {
			t.Errorf("SequenceSetter(%s) = %v %q %v, want line %d %q", c.seq, pos, what, ok, c.line, c.what)
		}
	}
	if pos, what, ok := ix.Caller("net.http_post", "net.http_get"); !ok || pos.Line != 5 || what != "call of http_post" {
		t.Errorf("Caller = %v %q %v, want the top-level http_post at line 5", pos, what, ok)
	}
	if pos, _, ok := ix.Caller("net.http_delete", "net.http_get", "net.http_post"); !ok || pos.Line != 2 {
		t.Errorf("Caller = %v %v, want the first function of the list the file calls (net.http_get, line 2)", pos, ok)
	}
	if pos, what, ok := ix.Caller("net.http_get"); !ok || pos.Line != 2 || what != "call of net.http_get in the body of public.ping" {
		t.Errorf("Caller(net.http_get) = %v %q %v, want the call in public.ping at line 2", pos, what, ok)
	}
}
