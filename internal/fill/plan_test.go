package fill

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// snapshots returns the catalog before a sidecar (the Open Brain thoughts and agent_memories)
// and after it: topics with an enum, a unique slug, a CHECK'd numeric, a domain, an identity
// and a text[]; thought_topics hung off thoughts and topics; and z_items / a_links, whose
// names sort against their dependency order.
func snapshots() (before, after *introspect.Snapshot) {
	thoughts := introspect.Table{Schema: "public", Name: "thoughts", Kind: "table", Columns: []introspect.Column{
		{Name: "id", Type: "uuid", NotNull: true, Default: "gen_random_uuid()"},
		{Name: "content", Type: "text", NotNull: true},
		{Name: "embedding", Type: "extensions.vector(1536)"},
		{Name: "metadata", Type: "jsonb", Default: "'{}'::jsonb"},
	}, Constraints: []introspect.Constraint{{Name: "thoughts_pkey", Type: "primary key", Definition: "PRIMARY KEY (id)"}}}
	memories := introspect.Table{Schema: "public", Name: "agent_memories", Kind: "table", Columns: []introspect.Column{
		{Name: "id", Type: "uuid", NotNull: true, Default: "gen_random_uuid()"},
		{Name: "workspace_id", Type: "text", NotNull: true},
	}}
	before = &introspect.Snapshot{Tables: []introspect.Table{memories, thoughts}}
	after = &introspect.Snapshot{
		Types: []introspect.Type{
			{Schema: "public", Name: "topic_kind", Kind: "enum", Labels: []string{"person", "project", "place"}},
			{Schema: "public", Name: "score", Kind: "domain", BaseType: "integer",
				Constraints: []introspect.Constraint{{Name: "score_check", Type: "check", Definition: "CHECK (((VALUE >= 1) AND (VALUE <= 5)))"}}},
		},
		Tables: []introspect.Table{
			{Schema: "public", Name: "a_links", Kind: "table", Columns: []introspect.Column{
				{Name: "item", Type: "bigint", NotNull: true},
				{Name: "note", Type: "character varying(6)"},
			}, Constraints: []introspect.Constraint{{Name: "a_links_item_fkey", Type: "foreign key", Definition: "FOREIGN KEY (item) REFERENCES z_items(id) ON DELETE CASCADE"}}},
			memories,
			{Schema: "public", Name: "thought_topics", Kind: "table", Columns: []introspect.Column{
				{Name: "thought_id", Type: "uuid", NotNull: true},
				{Name: "topic_id", Type: "uuid", NotNull: true},
				{Name: "status", Type: "text", NotNull: true},
				{Name: "embedding", Type: "extensions.vector(1536)"},
			}, Constraints: []introspect.Constraint{
				{Name: "thought_topics_pkey", Type: "primary key", Definition: "PRIMARY KEY (thought_id, topic_id)"},
				{Name: "thought_topics_status_check", Type: "check", Definition: "CHECK ((status = ANY (ARRAY['suggested'::text, 'confirmed'::text])))"},
				{Name: "thought_topics_thought_id_fkey", Type: "foreign key", Definition: "FOREIGN KEY (thought_id) REFERENCES public.thoughts(id) ON DELETE CASCADE"},
				{Name: "thought_topics_topic_id_fkey", Type: "foreign key", Definition: "FOREIGN KEY (topic_id) REFERENCES public.topics(id)"},
			}},
			thoughts,
			{Schema: "public", Name: "topics", Kind: "table", Columns: []introspect.Column{
				{Name: "id", Type: "uuid", NotNull: true, Default: "gen_random_uuid()"},
				{Name: "n", Type: "bigint", NotNull: true, Identity: "always"},
				{Name: "slug", Type: "text", NotNull: true},
				{Name: "kind", Type: "public.topic_kind", NotNull: true},
				{Name: "weight", Type: "numeric(3,2)", NotNull: true},
				{Name: "rank", Type: "public.score"},
				{Name: "tags", Type: "text[]"},
				{Name: "created_at", Type: "timestamp with time zone", NotNull: true, Default: "now()"},
			}, Constraints: []introspect.Constraint{
				{Name: "topics_pkey", Type: "primary key", Definition: "PRIMARY KEY (id)"},
				{Name: "topics_slug_key", Type: "unique", Definition: "UNIQUE (slug)"},
				{Name: "topics_weight_check", Type: "check", Definition: "CHECK (((weight >= (0)::numeric) AND (weight <= (1)::numeric)))"},
			}},
			{Schema: "public", Name: "z_items", Kind: "table", Columns: []introspect.Column{
				{Name: "id", Type: "bigint", NotNull: true, Default: "nextval('z_items_id_seq'::regclass)"},
				{Name: "label", Type: "text", NotNull: true},
				{Name: "at", Type: "timestamp with time zone"},
				{Name: "flag", Type: "boolean"},
			}, Constraints: []introspect.Constraint{{Name: "z_items_pkey", Type: "primary key", Definition: "PRIMARY KEY (id)"}}},
		},
	}
	return before, after
}

func names(p *Plan) []string {
	var out []string
	for _, t := range p.Tables {
		out = append(out, t.Name)
	}
	return out
}

func table(t *testing.T, p *Plan, name string) *Table {
	t.Helper()
	for _, x := range p.Tables {
		if x.Name == name {
			return x
		}
	}
	t.Fatalf("%s is not in the plan %v", name, names(p))
	return nil
}

// The plan covers the tables the install created and the tables they reference (marked
// prerequisites), not the other tables that were there before, each after what it references.
func TestPlanScopeAndOrder(t *testing.T) {
	before, after := snapshots()
	p := New(before, after, Options{})
	got := names(p)
	if slices.Contains(got, "public.agent_memories") {
		t.Errorf("plan %v fills a table the install did not create and nothing references", got)
	}
	want := []string{"public.thoughts", "public.topics", "public.z_items", "public.a_links", "public.thought_topics"}
	if len(got) != len(want) {
		t.Fatalf("plan %v, want the tables %v", got, want)
	}
	pos := map[string]int{}
	for i, n := range got {
		pos[n] = i
	}
	for _, dep := range [][2]string{{"public.thoughts", "public.thought_topics"}, {"public.topics", "public.thought_topics"}, {"public.z_items", "public.a_links"}} {
		if pos[dep[0]] > pos[dep[1]] {
			t.Errorf("plan %v: %s comes after %s, which references it", got, dep[0], dep[1])
		}
	}
	for _, x := range p.Tables {
		if x.Prerequisite != (x.Name == "public.thoughts") {
			t.Errorf("%s: prerequisite %v", x.Name, x.Prerequisite)
		}
	}
}

// Columns with a default, an identity or a generation expression are left to the server,
// except a key another table references with a default that is not a sequence's (so that the
// rows referencing it are reproducible).
func TestPlanColumns(t *testing.T) {
	before, after := snapshots()
	p := New(before, after, Options{})
	for name, want := range map[string][]string{
		"public.topics":   {"id", "slug", "kind", "weight", "rank", "tags"},
		"public.z_items":  {"label", "at", "flag"},
		"public.thoughts": {"id", "content", "embedding"},
	} {
		if got := table(t, p, name).Columns(); !slices.Equal(got, want) {
			t.Errorf("%s: columns %v, want %v", name, got, want)
		}
	}
}

// valuesOf returns the INSERT of each row of a table in the plan, with the foreign keys to the
// plan's earlier tables as they would be after a run where every row went in.
func statements(p *Plan, name string) []string {
	got := map[string]*inserted{}
	var out []string
	for _, x := range p.Tables {
		ins := &inserted{}
		for row := range x.Rows {
			sql, lits := x.insert(p.Seed, row, make([]int, len(x.cols)), make([]bool, len(x.fks)), got)
			ins.rows = append(ins.rows, lits)
			if x.Name == name {
				out = append(out, sql)
			}
		}
		got[x.Name] = ins
	}
	return out
}

// Every type gets a value in its own syntax: the vector at the column's dimension, the enum
// from its labels, the CHECK's IN list, numeric(3,2) inside its CHECK, a domain inside its
// CHECK, an array literal, a uuid.
func TestValuesPerType(t *testing.T) {
	before, after := snapshots()
	p := New(before, after, Options{})
	topics := statements(p, "public.topics")
	if len(topics) != DefaultRows {
		t.Fatalf("%d rows of topics, want %d", len(topics), DefaultRows)
	}
	row := regexp.MustCompile(`^INSERT INTO "public"\."topics" \("id", "slug", "kind", "weight", "rank", "tags"\) VALUES \(E'[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}', E'[a-z]+[0-9]+', E'(person|project|place)', E'0\.50', E'3', E'\{"[a-z]+[0-9]+","[a-z]+[0-9]+"\}'\)$`)
	for _, s := range topics {
		if !row.MatchString(s) {
			t.Errorf("topics row:\n%s\ndoes not match\n%s", s, row)
		}
	}
	thoughts := statements(p, "public.thoughts")
	vec := regexp.MustCompile(`'\[([^\]]*)\]'\)$`).FindStringSubmatch(thoughts[0])
	if vec == nil || len(strings.Split(vec[1], ",")) != 1536 {
		t.Errorf("thoughts row has no vector of 1536 elements: %.200s", thoughts[0])
	}
	for _, s := range statements(p, "public.thought_topics") {
		if !strings.Contains(s, "E'suggested'") && !strings.Contains(s, "E'confirmed'") {
			t.Errorf("thought_topics row takes no label of the status CHECK: %.200s", s)
		}
	}
	// A key referencing a sequence's column reads the referenced row; a varchar(6) is cut to 6.
	links := statements(p, "public.a_links")
	if !strings.Contains(links[1], `(SELECT "id" FROM "public"."z_items" ORDER BY ctid LIMIT 1 OFFSET 1) AS r0`) {
		t.Errorf("a_links row 1 does not reference z_items' row 1: %s", links[1])
	}
	if m := regexp.MustCompile(`SELECT r0\."id", E'([^']*)'`).FindStringSubmatch(links[0]); m == nil || len(m[1]) > 6 {
		t.Errorf("a_links row 0: the varchar(6) value is not cut: %s", links[0])
	}
}

// Rows differ in every column that can (a primary key or unique constraint holds), and a
// foreign key takes a different referenced row for each row.
func TestDistinctRows(t *testing.T) {
	before, after := snapshots()
	p := New(before, after, Options{})
	for _, name := range []string{"public.topics", "public.thoughts", "public.thought_topics"} {
		x := table(t, p, name)
		got := map[string]*inserted{}
		for _, y := range p.Tables {
			if y == x {
				break
			}
			ins := &inserted{}
			for row := range y.Rows {
				_, lits := y.insert(p.Seed, row, make([]int, len(y.cols)), make([]bool, len(y.fks)), got)
				ins.rows = append(ins.rows, lits)
			}
			got[y.Name] = ins
		}
		seen := map[string]map[string]bool{}
		for row := range x.Rows {
			_, lits := x.insert(p.Seed, row, make([]int, len(x.cols)), make([]bool, len(x.fks)), got)
			for col, v := range lits {
				if col == "kind" || col == "status" || col == "weight" || col == "rank" {
					continue // a CHECK or an enum's few labels
				}
				if seen[col] == nil {
					seen[col] = map[string]bool{}
				}
				if seen[col][v] {
					t.Errorf("%s.%s: row %d repeats %.60s", name, col, row, v)
				}
				seen[col][v] = true
			}
		}
	}
}

// The same snapshots and seed give the same statements; another seed gives other values.
func TestReproducible(t *testing.T) {
	before, after := snapshots()
	a := statements(New(before, after, Options{}), "public.thought_topics")
	b := statements(New(before, after, Options{Seed: DefaultSeed}), "public.thought_topics")
	c := statements(New(before, after, Options{Seed: 7}), "public.thought_topics")
	if !slices.Equal(a, b) {
		t.Errorf("two plans with the seed %d differ:\n%s\n%s", DefaultSeed, a[0], b[0])
	}
	if slices.Equal(a, c) {
		t.Errorf("the seeds %d and 7 give the same rows", DefaultSeed)
	}
}

// A NOT NULL column of a type with no generated value leaves its table out with the reason;
// a nullable one is left NULL.
func TestSkipsWhatItCannotFill(t *testing.T) {
	before, after := snapshots()
	after.Tables = append(after.Tables,
		introspect.Table{Schema: "public", Name: "shapes", Kind: "table", Columns: []introspect.Column{
			{Name: "shape", Type: "extensions.geometry", NotNull: true}}},
		introspect.Table{Schema: "public", Name: "maybe_shapes", Kind: "table", Columns: []introspect.Column{
			{Name: "label", Type: "text", NotNull: true}, {Name: "shape", Type: "extensions.geometry"}}})
	p := New(before, after, Options{})
	if len(p.Skipped) != 1 || p.Skipped[0].Table != "public.shapes" || !strings.Contains(p.Skipped[0].Reason, "column shape of type extensions.geometry") {
		t.Errorf("skipped %+v, want public.shapes for its geometry column", p.Skipped)
	}
	if got := table(t, p, "public.maybe_shapes").Columns(); !slices.Equal(got, []string{"label"}) {
		t.Errorf("maybe_shapes columns %v, want [label]", got)
	}
}

// The catalog's text is read as the server prints it: quoted and qualified names, type
// modifiers, the literals of a CHECK.
func TestParseCatalogText(t *testing.T) {
	fk, ok := parseForeignKey(`FOREIGN KEY (a, "Odd ""b""") REFERENCES "My Schema".parent(x, y) ON DELETE SET NULL NOT VALID`)
	if !ok || !slices.Equal(fk.cols, []string{"a", `Odd "b"`}) || fk.refSchema != "My Schema" || fk.table != "parent" || !slices.Equal(fk.refCols, []string{"x", "y"}) {
		t.Errorf("foreign key: %+v %v", fk, ok)
	}
	if fk, ok := parseForeignKey("FOREIGN KEY (t) REFERENCES thoughts(id)"); !ok || fk.refSchema != "" || fk.table != "thoughts" {
		t.Errorf("unqualified foreign key: %+v %v", fk, ok)
	}
	for in, want := range map[string]typeName{
		"character varying(40)":       {name: "character varying", mods: []int{40}},
		"numeric(3,2)":                {name: "numeric", mods: []int{3, 2}},
		"public.mood[]":               {schema: "public", name: "mood", array: 1},
		`public."My Type"`:            {schema: "public", name: "My Type"},
		"timestamp(3) with time zone": {name: "timestamp with time zone", mods: []int{3}},
		"extensions.vector(1024)":     {schema: "extensions", name: "vector", mods: []int{1024}},
	} {
		got := parseType(in)
		if got.schema != want.schema || got.name != want.name || !slices.Equal(got.mods, want.mods) || got.array != want.array {
			t.Errorf("parseType(%q) = %+v, want %+v", in, got, want)
		}
	}
	strs, nums := literals("CHECK (((status = ANY (ARRAY['it''s'::text, 'b'::text])) AND (score >= 0) AND (score <= 10)))")
	if !slices.Equal(strs, []string{"it's", "b"}) || !slices.Equal(nums, []float64{0, 10}) {
		t.Errorf("literals: %q %v", strs, nums)
	}
	if got := mentioned(`CHECK ((slug ~ '^kind$'::text) AND ("Odd" > 0))`, []string{"kind", "slug", "Odd", "other"}); !slices.Equal(got, []string{"slug", "Odd"}) {
		t.Errorf("mentioned: %v (a name inside a string literal is not a column)", got)
	}
}

// countingConn accepts every INSERT and counts them.
type countingConn struct{ n int }

func (c *countingConn) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	c.n++
	return pgconn.NewCommandTag("INSERT 0 1"), nil
}

// Past its time budget, Run starts no table: each is skipped with the reason, nothing is
// inserted. Within it, every planned row is inserted once.
func TestRunBudget(t *testing.T) {
	before, after := snapshots()
	p := New(before, after, Options{})
	var c countingConn
	res, err := Run(context.Background(), &c, p)
	if err != nil || c.n != len(p.Tables)*DefaultRows || res.Rows() != c.n || len(res.Skipped) != 0 {
		t.Fatalf("within the budget: %d statements, result %+v, %v", c.n, res, err)
	}
	defer func(b time.Duration) { budget = b }(budget)
	budget = -1
	c = countingConn{}
	res, err = Run(context.Background(), &c, p)
	if err != nil || c.n != 0 || len(res.Tables) != 0 || len(res.Skipped) != len(p.Tables) || !strings.Contains(res.Skipped[0].Reason, "took more than") {
		t.Errorf("past the budget: %d statements, result %+v, %v", c.n, res, err)
	}
}
