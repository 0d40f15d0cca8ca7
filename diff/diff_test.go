package diff

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/introspect"
)

func created(facts ...introspect.Fact) *introspect.Footprint { return introspect.DiffFacts(nil, facts) }

func mkFact(kind, obj, attr, val string) introspect.Fact {
	return introspect.Fact{Kind: kind, Object: obj, Attr: attr, Value: val}
}

func ids(r *Result) string {
	var out []string
	for _, d := range r.Differences {
		out = append(out, strings.SplitN(d.ID, " #", 2)[0]+" ["+string(d.Class)+"]")
	}
	return strings.Join(out, "\n")
}

func TestCosmeticAndSemanticBodies(t *testing.T) {
	body := func(norm, raw string) introspect.Fact {
		return introspect.Fact{Kind: "function", Object: "public.f()", Attr: "body", Value: norm, Display: raw}
	}
	l := Install{Footprint: created(body("select 1", "select 1 -- one"))}
	r := Install{Footprint: created(body("select 1", "select  1"))}
	res := Compare(l, r)
	if got := ids(res); got != "function public.f() body [cosmetic]" {
		t.Fatalf("differences = %q, want one cosmetic body difference", got)
	}
	if len(res.Semantic()) != 0 {
		t.Errorf("Semantic() = %v, want none", res.Semantic())
	}
	r.Footprint = created(body("select 2", "select 2"))
	if got := ids(Compare(l, r)); got != "function public.f() body [semantic]" {
		t.Errorf("differences = %q, want one semantic body difference", got)
	}
}

func TestDimensionNormalizationCountsSites(t *testing.T) {
	col := func(typ string) *introspect.Footprint {
		return created(mkFact("column", "public.t.e", "type", typ), mkFact("table", "public.t", "kind", "table"))
	}
	l := Install{Dim: 1536, Footprint: col("extensions.vector(1536)")}
	r := Install{Dim: 1024, Footprint: col("extensions.vector(1024)")}
	res := Compare(l, r)
	if len(res.Differences) != 0 {
		t.Errorf("differences = %q, want none", ids(res))
	}
	if len(res.Sites) != 1 || res.Sites[0].String() != "column public.t.e type" || res.Sites[0].Artifact != 1 || res.Sites[0].Port != 1 {
		t.Errorf("sites = %+v, want the column type once in each variant", res.Sites)
	}
	// A typmod that is not the variant's dimension is a difference, not normalized.
	r.Footprint = col("extensions.halfvec(768)")
	res = Compare(l, r)
	if got := ids(res); got != "column public.t.e type [semantic]" || res.Differences[0].Artifact != "extensions.vector(:dim)" || res.Differences[0].Port != "extensions.halfvec(768)" {
		t.Errorf("differences = %q %+v", got, res.Differences)
	}
	// Same dimension in both variants: nothing is normalized or counted.
	r = Install{Dim: 1536, Footprint: col("extensions.vector(1536)")}
	if res := Compare(l, r); len(res.Sites) != 0 || len(res.Differences) != 0 {
		t.Errorf("equal dims: sites %v differences %q", res.Sites, ids(res))
	}
}

// fnSource is what a parser reads from
//
//	CREATE FUNCTION public.f(p_e vector(D), p_n integer DEFAULT 1) RETURNS TABLE (id uuid, score float) ...
func fnSource(name string, dim int) *Source {
	at := func(col int) Position { return Position{File: name, Line: 1, Col: col} }
	return &Source{Name: name,
		Signatures: []Signature{{Name: "public.f", Params: []Param{
			{Name: "p_e", Mode: "in", Type: "vector(" + strconv.Itoa(dim) + ")", Pos: at(30)},
			{Name: "p_n", Mode: "in", Type: "integer", Pos: at(44)},
			{Name: "id", Mode: "table", Type: "uuid", Pos: at(90)},
			{Name: "score", Mode: "table", Type: "float", Pos: at(101)},
		}}},
		VectorTypes: []VectorType{{Type: "vector", Dim: dim, Pos: at(37), Statement: "function public.f"}},
	}
}

func TestDeclaredSignatureFromSource(t *testing.T) {
	fp := created(mkFact("function", "public.f(extensions.vector, integer)", "kind", "function"))
	variant := func(label string, dim, declared int) Install {
		name := label + ".sql"
		return Install{File: name, Dim: dim, Footprint: fp, Source: fnSource(name, declared)}
	}
	res := Compare(variant("artifact", 1536, 1536), variant("port", 1024, 1024))
	if len(res.Differences) != 0 || len(res.Sites) != 1 || res.Sites[0].Attr != "declared argument p_e" || res.Sites[0].PortPos == nil || res.Sites[0].PortPos.String() != "port.sql:1:30" {
		t.Errorf("shipped-like pair: differences %q sites %+v", ids(res), res.Sites)
	}
	// The port kept vector(1536) in its signature: exactly one difference, at the declaration.
	res = Compare(variant("artifact", 1536, 1536), variant("port", 1024, 1536))
	if got := ids(res); got != "function public.f(extensions.vector, integer) declared argument p_e [semantic]" {
		t.Fatalf("differences = %q, want only the declared argument", got)
	}
	if d := res.Differences[0]; d.Port != "vector(1536)" || d.Artifact != "vector(:dim)" || d.Pos == nil || d.Pos.String() != "port.sql:1:30" {
		t.Errorf("difference = %+v", d)
	}
	// Both files declare a dimension that is neither variant's: no parity difference between the
	// declarations, but the dimension scan reports each variant.
	res = Compare(variant("artifact", 1536, 768), variant("port", 1024, 768))
	if got := ids(res); got != "dimension function public.f artifact [semantic]\ndimension function public.f port [semantic]" {
		t.Errorf("differences = %q, want one dimension difference per variant", got)
	}
}

func TestOneSidedObjectsFoldIntoTheirTable(t *testing.T) {
	l := Install{Footprint: created(mkFact("table", "public.a", "kind", "table"))}
	r := Install{Footprint: created(
		mkFact("table", "public.a", "kind", "table"),
		mkFact("table", "public.pins", "kind", "table"),
		mkFact("column", "public.pins.id", "type", "uuid"),
		mkFact("constraint", "pins_pkey on public.pins", "type", "primary key"),
		mkFact("index", "public.pins_pkey", "table", "public.pins"),
		mkFact("policy", "p on public.a", "roles", "service_role"),
	)}
	res := Compare(l, r)
	if got := ids(res); got != "policy p on public.a [semantic]\ntable public.pins [semantic]" {
		t.Fatalf("differences = %q, want the policy and the folded table", got)
	}
	tbl := res.Differences[1]
	for _, want := range []string{"kind: table", "column public.pins.id\n  type: uuid", "constraint pins_pkey on public.pins", "index public.pins_pkey"} {
		if !strings.Contains(tbl.Port, want) {
			t.Errorf("listing lacks %q:\n%s", want, tbl.Port)
		}
	}
	if _, shown := tbl.Shown(); shown != "table public.pins: kind=table\ncolumn public.pins.id: type=uuid\nconstraint pins_pkey on public.pins: type=primary key\nindex public.pins_pkey: table=public.pins\n" {
		t.Errorf("shown:\n%s", shown)
	}
	if got := tbl.Members(); got != "1 column, 1 constraint, 1 index" {
		t.Errorf("members = %q", got)
	}
	if tbl.Artifact != "" || tbl.Presence() != PortOnly {
		t.Errorf("presence = %q", tbl.Presence())
	}
}

func TestColumnPositionsIgnoreOneSidedColumns(t *testing.T) {
	cols := func(names ...string) *introspect.Footprint {
		fs := []introspect.Fact{mkFact("table", "public.t", "kind", "table")}
		for i, n := range names {
			fs = append(fs, mkFact("column", "public.t."+n, "position", strconv.Itoa(i+1)))
		}
		return created(fs...)
	}
	res := Compare(Install{Footprint: cols("a", "pinned", "b")}, Install{Footprint: cols("a", "b")})
	if got := ids(res); got != "column public.t.pinned [semantic]" {
		t.Errorf("differences = %q, want only the one-sided column", got)
	}
	// Columns in another order are still a difference.
	res = Compare(Install{Footprint: cols("a", "pinned", "b")}, Install{Footprint: cols("b", "a")})
	if got := ids(res); !strings.Contains(got, "column public.t.a position") {
		t.Errorf("differences = %q, want a position difference", got)
	}
}

func TestDigestIsThePair(t *testing.T) {
	a := Difference{Artifact: "x", Port: "y"}
	if a.Digest() == (Difference{Artifact: "xy", Port: ""}).Digest() || a.Digest() != Digest("x", "y") || !strings.HasPrefix(a.Digest(), "sha256:") || len(a.Digest()) != 71 {
		t.Errorf("digest %s", a.Digest())
	}
}

func TestRenamedObjectsAreOneDifference(t *testing.T) {
	table := mkFact("table", "public.t", "kind", "table")
	trg := func(name, when string) []introspect.Fact {
		obj := name + " on public.t"
		return []introspect.Fact{mkFact("trigger", obj, "definition", "CREATE TRIGGER "+name+" "+when+" UPDATE ON public.t FOR EACH ROW EXECUTE FUNCTION f()"), mkFact("trigger", obj, "enabled", "O")}
	}
	idx := func(name string) []introspect.Fact {
		return []introspect.Fact{mkFact("index", "public."+name, "table", "public.t"), mkFact("index", "public."+name, "definition", "CREATE INDEX "+name+" ON public.t USING btree (a)")}
	}
	variant := func(label string, fs ...[]introspect.Fact) Install {
		all := []introspect.Fact{table}
		for _, f := range fs {
			all = append(all, f...)
		}
		return Install{Footprint: created(all...)}
	}
	res := Compare(variant("artifact", trg("trg_updated_at", "BEFORE"), idx("t_a_idx")), variant("port", trg("trg_set_updated_at", "BEFORE"), idx("idx_t_a")))
	if got := ids(res); got != "index public.idx_t_a renamed [semantic]\ntrigger trg_set_updated_at on public.t renamed [semantic]" {
		t.Fatalf("differences = %q, want one rename each", got)
	}
	if d := res.Differences[1]; d.Artifact != "trg_updated_at on public.t" || d.Port != "trg_set_updated_at on public.t" {
		t.Errorf("rename = %+v", d)
	}
	// A primary key renamed with its index: two renames.
	pk := func(name string) []introspect.Fact {
		return []introspect.Fact{mkFact("constraint", name+" on public.t", "definition", "PRIMARY KEY (a)"),
			mkFact("index", "public."+name, "table", "public.t"), mkFact("index", "public."+name, "constraint", name),
			mkFact("index", "public."+name, "definition", "CREATE UNIQUE INDEX "+name+" ON public.t USING btree (a)")}
	}
	res = Compare(variant("artifact", pk("t_pkey")), variant("port", pk("t_id_pk")))
	if got := ids(res); got != "constraint t_id_pk on public.t renamed [semantic]\nindex public.t_id_pk renamed [semantic]" {
		t.Errorf("differences = %q, want the constraint and its index renamed", got)
	}
	// A renamed trigger whose definition changed too is not a rename.
	res = Compare(variant("artifact", trg("trg_updated_at", "BEFORE")), variant("port", trg("trg_set_updated_at", "AFTER")))
	if got := ids(res); got != "trigger trg_set_updated_at on public.t [semantic]\ntrigger trg_updated_at on public.t [semantic]" {
		t.Errorf("differences = %q, want the two one-sided triggers", got)
	}
}

func TestArgumentListsOnePerLine(t *testing.T) {
	args := func(def string) introspect.Fact {
		return mkFact("function", "public.f(numeric, text[])", "arguments", "p_a numeric(10,2) DEFAULT "+def+", p_b text[] DEFAULT '{x,y}'::text[]")
	}
	res := Compare(Install{Footprint: created(args("30.0"))}, Install{Footprint: created(args("45.0"))})
	if len(res.Differences) != 1 {
		t.Fatalf("differences = %q", ids(res))
	}
	d := res.Differences[0]
	l, r := d.Shown()
	if l != "p_a numeric(10,2) DEFAULT 30.0,\np_b text[] DEFAULT '{x,y}'::text[]" || r != "p_a numeric(10,2) DEFAULT 45.0,\np_b text[] DEFAULT '{x,y}'::text[]" || !d.IsText() {
		t.Errorf("shown = %q / %q", l, r)
	}
	if d.Digest() != Digest(args("30.0").Value, args("45.0").Value) {
		t.Errorf("the digest must be of the values, not of the display")
	}
}
