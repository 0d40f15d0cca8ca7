package introspect

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/ledgercheck/ledgercheck/internal/golden"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// TestGoldenFootprints pins what the shipped artifact and port install: every fact of every
// object they create, and every attribute of a pre-existing object they change, one per line.
func TestGoldenFootprints(t *testing.T) {
	for _, tc := range []struct {
		file, golden string
		dim          int
	}{
		{"../migrations/decision_ledger.sql", "decision_ledger_1536.json", 1536},
		{"../migrations/ports/decision_ledger_1024.sql", "decision_ledger_1024.json", 1024},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			src, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			db := scratchtest.NewDatabase(t, tc.dim)
			fp, _, err := footprintOf(context.Background(), db, tc.file, src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := footprintGolden(t, fp)
			golden.Check(t, filepath.Join("..", "testdata", "snapshot", tc.golden), got)
		})
	}
}

// footprintGolden renders fp as JSON with one fact or change per line, so that a review of the
// golden's diff reads attribute by attribute.
func footprintGolden(t *testing.T, fp *Footprint) []byte {
	t.Helper()
	var b bytes.Buffer
	section := func(name string, items []any, last bool) {
		b.WriteString("  \"" + name + "\": [")
		for i, it := range items {
			line, err := json.Marshal(it)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n    ")
			b.Write(line)
		}
		if len(items) > 0 {
			b.WriteString("\n  ")
		}
		b.WriteString("]")
		if !last {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	var created, dropped, changed []any
	for _, o := range fp.Created {
		for _, f := range o.Facts {
			created = append(created, f)
		}
	}
	for _, o := range fp.Dropped {
		for _, f := range o.Facts {
			dropped = append(dropped, f)
		}
	}
	for _, c := range fp.Changed {
		changed = append(changed, c)
	}
	b.WriteString("{\n")
	section("created", created, false)
	section("changed", changed, false)
	section("dropped", dropped, true)
	b.WriteString("}\n")
	return b.Bytes()
}

func firstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n- " + w + "\n+ " + g
		}
	}
	return "(no line differs)"
}

// sessionSensitive has defaults whose printed form depends on session settings when they are
// not pinned: a search_path that makes names visible, and every setting of printedSettings
// (DateStyle, IntervalStyle, TimeZone, extra_float_digits, bytea_output, ...).
const sessionSensitive = `
CREATE TABLE public.session_sensitive (
  id  integer PRIMARY KEY,
  at  timestamptz NOT NULL DEFAULT '2020-01-02 03:04:05+00',
  d   date DEFAULT '2020-01-02',
  gap interval DEFAULT '1 day 02:00:00',
  f   double precision DEFAULT '1.01',
  b   bytea DEFAULT '\x00ff',
  m   money DEFAULT 12.34,
  x   xml DEFAULT '<a>1</a>',
  e   extensions.vector(3),
  CHECK (gap > '00:00:00'::interval)
);
CREATE INDEX session_sensitive_e ON public.session_sensitive USING hnsw (e extensions.vector_cosine_ops);
`

func TestSnapshotIsDeterministic(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile("../migrations/decision_ledger.sql")
	if err != nil {
		t.Fatal(err)
	}
	var jsons [][]byte
	for range 2 {
		db := scratchtest.NewDatabase(t, 1536)
		scratchtest.Exec(t, db, "decision_ledger.sql", string(src))
		scratchtest.Exec(t, db, "session_sensitive.sql", sessionSensitive)
		conn := scratchtest.Connect(t, db)
		// The second snapshot of each database is taken with every setting that changes how a
		// value prints set otherwise (printOtherwise, from the server's own list).
		for _, otherwise := range []bool{false, true} {
			if otherwise {
				if _, err := conn.Exec(ctx, "SET search_path = public, extensions"); err != nil {
					t.Fatal(err)
				}
				printOtherwise(t, conn)
			}
			s, err := Take(ctx, conn, Options{NormalizeBody: pgsql.NormalizeBody})
			if err != nil {
				t.Fatal(err)
			}
			js, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			jsons = append(jsons, js)
		}
	}
	for i := 1; i < len(jsons); i++ {
		if !bytes.Equal(jsons[0], jsons[i]) {
			t.Errorf("snapshot %d differs from snapshot 0:\n%s", i, firstDifference(string(jsons[0]), string(jsons[i])))
		}
	}
	// Expressions are schema-qualified and constants printed in the pinned styles.
	for _, want := range []string{
		`"default": "'2020-01-02 03:04:05+00'::timestamp with time zone"`,
		`"default": "'1 day 02:00:00'::interval"`,
		`"type": "extensions.vector(3)"`,
		`USING hnsw (e extensions.vector_cosine_ops)`,
	} {
		if !bytes.Contains(jsons[0], []byte(want)) {
			t.Errorf("snapshot lacks %s", want)
		}
	}
}

func TestSnapshotScope(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	conn := scratchtest.Connect(t, db)
	schemas := func(s *Snapshot) []string {
		var out []string
		for _, x := range s.Schemas {
			out = append(out, x.Name)
		}
		return out
	}
	hasFunc := func(s *Snapshot, schema, name string) bool {
		return slices.ContainsFunc(s.Functions, func(f Function) bool { return f.Schema == schema && f.Name == name })
	}

	def, err := Take(ctx, conn, Options{NormalizeBody: pgsql.NormalizeBody})
	if err != nil {
		t.Fatal(err)
	}
	if got := schemas(def); !slices.Equal(got, []string{"public"}) {
		t.Errorf("default schemas = %v, want [public]", got)
	}
	if hasFunc(def, "auth", "uid") {
		t.Error("auth.uid() in the default snapshot")
	}
	if !slices.ContainsFunc(def.Extensions, func(e Extension) bool { return e.Name == "vector" && e.Schema == "extensions" }) {
		t.Errorf("extension vector missing: %+v", def.Extensions)
	}

	env, err := Take(ctx, conn, Options{IncludeEnvironment: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := schemas(env); !slices.Contains(got, "auth") || !slices.Contains(got, "extensions") {
		t.Errorf("schemas with environment = %v", got)
	}
	if !hasFunc(env, "auth", "uid") {
		t.Error("auth.uid() missing with IncludeEnvironment")
	}
	if hasFunc(env, "extensions", "vector_dims") {
		t.Error("pgvector's vector_dims (an extension member) included without IncludeExtensionObjects")
	}

	all, err := Take(ctx, conn, Options{IncludeEnvironment: true, IncludeExtensionObjects: true})
	if err != nil {
		t.Fatal(err)
	}
	if !hasFunc(all, "extensions", "vector_dims") {
		t.Error("vector_dims missing with IncludeExtensionObjects")
	}

	if len(def.Roles) == 0 {
		t.Error("no roles in the default snapshot")
	}
	noRoles, err := Take(ctx, conn, Options{SkipRoles: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(noRoles.Roles) != 0 {
		t.Errorf("SkipRoles gave %d roles", len(noRoles.Roles))
	}

	only, err := Take(ctx, conn, Options{IncludeEnvironment: true, Schemas: []string{"auth"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := schemas(only); !slices.Equal(got, []string{"auth"}) {
		t.Errorf("Schemas: [auth] gave %v", got)
	}
}

func TestSnapshotIsReadOnlyAndLeavesSessionAlone(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	conn := scratchtest.Connect(t, db)
	if _, err := conn.Exec(ctx, "SET search_path = public, extensions"); err != nil {
		t.Fatal(err)
	}
	if _, err := Take(ctx, conn, Options{NormalizeBody: pgsql.NormalizeBody}); err != nil {
		t.Fatal(err)
	}
	var sp string
	if err := conn.QueryRow(ctx, "SHOW search_path").Scan(&sp); err != nil {
		t.Fatal(err)
	}
	if sp != "public, extensions" {
		t.Errorf("search_path after Take = %q", sp)
	}
}

func TestFactsCoverEveryObject(t *testing.T) {
	// Each object in a snapshot has at least one fact, so that its creation or removal shows.
	db := scratchtest.NewDatabase(t, 1536)
	scratchtest.Exec(t, db, "base.sql", changeBase)
	s, err := Take(context.Background(), scratchtest.Connect(t, db), Options{NormalizeBody: pgsql.NormalizeBody})
	if err != nil {
		t.Fatal(err)
	}
	refs := map[ObjectRef]bool{}
	for _, f := range s.Facts() {
		refs[f.Ref()] = true
	}
	for _, want := range []ObjectRef{
		{KindSchema, "app"}, {KindType, "public.mood"}, {KindType, "public.pos"}, {KindType, "public.pair"},
		{KindAttribute, "public.pair.a"}, {KindConstraint, "pos_check on public.pos"},
		{KindTable, "public.t"}, {KindColumn, "public.t.emb"}, {KindConstraint, "t_pkey on public.t"},
		{KindIndex, "public.t_emb_idx"}, {KindSequence, "public.t_id_seq"}, {KindSequence, "public.s"},
		{KindView, "public.v"}, {KindView, "public.mv"}, {KindColumn, "public.v.name"},
		{KindFunction, "public.f(integer)"}, {KindFunction, "app.g()"}, {KindTrigger, "t_trg on public.t"},
		{KindPolicy, "p on public.t"}, {KindDefaultPrivileges, "for role postgres in schema public on functions"},
		{KindExtension, "vector"}, {KindRole, "service_role"},
	} {
		if !refs[want] {
			t.Errorf("no fact for %s", want)
		}
	}
}
