package introspect

import (
	"context"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// catalogKinds creates one object of each kind the install role can create. The event trigger
// and the FOR TABLES IN SCHEMA publication need a superuser (see catalogKindsAdmin).
const catalogKinds = `
CREATE TABLE public.k (a int, b int, c text);
CREATE RULE k_keep AS ON DELETE TO public.k DO INSTEAD NOTHING;
CREATE OPERATOR public.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq, COMMUTATOR = OPERATOR(public.===));
CREATE TYPE public.mark AS (x int);
CREATE FUNCTION public.to_mark(int) RETURNS public.mark LANGUAGE sql AS 'SELECT row($1)::public.mark';
CREATE CAST (int AS public.mark) WITH FUNCTION public.to_mark(int) AS ASSIGNMENT;
CREATE COLLATION public.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE STATISTICS public.k_ab (ndistinct) ON a, b FROM public.k;
CREATE FUNCTION public.acc(int, int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + $2';
CREATE AGGREGATE public.total(int) (SFUNC = public.acc, STYPE = int, INITCOND = '0');
CREATE TEXT SEARCH CONFIGURATION public.cfg (COPY = english);
CREATE TEXT SEARCH DICTIONARY public.ledger_words (TEMPLATE = pg_catalog.simple, STOPWORDS = english, ACCEPT = false);
CREATE PUBLICATION k_pub FOR TABLE public.k (a, b) WHERE (a > 1);
CREATE FUNCTION public.ddl_watch() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN END $$;
`

const catalogKindsAdmin = `CREATE EVENT TRIGGER ddl_watch ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION public.ddl_watch();
CREATE PUBLICATION public_all FOR TABLES IN SCHEMA public`

// catalogKindsCreated are the objects catalogKinds and catalogKindsAdmin create, and
// catalogKindsFacts some of their facts, as the snapshot taken after them reads them.
var (
	catalogKindsCreated = []ObjectRef{
		{KindRule, "k_keep on public.k"}, {KindOperator, "public.===(integer, integer)"},
		{KindCast, "(integer AS public.mark)"}, {KindCollation, "public.ci"}, {KindStatistics, "public.k_ab"},
		{KindTextSearchConfig, "public.cfg"}, {KindTextSearchDict, "public.ledger_words"}, {KindEventTrigger, "ddl_watch"}, {KindPublication, "k_pub"},
		{KindPublication, "public_all"},
	}
	catalogKindsFacts = map[FactKey]string{
		{KindRule, "k_keep on public.k", "definition"}:               "CREATE RULE k_keep AS\n    ON DELETE TO public.k DO INSTEAD NOTHING;",
		{KindOperator, "public.===(integer, integer)", "commutator"}: "public.===(integer,integer)",
		{KindCast, "(integer AS public.mark)", "context"}:            "assignment",
		{KindCast, "(integer AS public.mark)", "function"}:           "public.to_mark(integer)",
		{KindCollation, "public.ci", "locale"}:                       "und-u-ks-level2",
		{KindCollation, "public.ci", "deterministic"}:                "false",
		{KindStatistics, "public.k_ab", "table"}:                     "public.k",
		{KindStatistics, "public.k_ab", "target"}:                    "",
		{KindFunction, "public.total(integer)", "transition"}:        "public.acc(integer,integer)",
		{KindFunction, "public.total(integer)", "initial_condition"}: "0",
		{KindTextSearchConfig, "public.cfg", "mapping:asciiword"}:    "english_stem",
		{KindTextSearchConfig, "public.cfg", "parser"}:               "pg_catalog.default",
		{KindTextSearchDict, "public.ledger_words", "template"}:      "pg_catalog.simple",
		{KindTextSearchDict, "public.ledger_words", "options"}:       "stopwords = 'english', accept = 'false'",
		{KindEventTrigger, "ddl_watch", "tags"}:                      "CREATE TABLE",
		{KindEventTrigger, "ddl_watch", "owner"}:                     DefaultAdminRole,
		{KindPublication, "k_pub", "table:public.k"}:                 "columns a, b where (a > 1)",
		{KindPublication, "public_all", "schema:public"}:             "all tables",
	}
)

// catalogKindsChange changes an attribute of each object of catalogKinds (catalogKindsChangeAdmin
// those only a superuser may change), and catalogKindsChanged is what the footprint of the change
// must show.
const (
	catalogKindsChange = `
CREATE OR REPLACE RULE k_keep AS ON DELETE TO public.k DO ALSO NOTHING;
ALTER OPERATOR public.=== (int, int) SET (RESTRICT = eqsel);
COMMENT ON CAST (int AS public.mark) IS 'marks';
COMMENT ON COLLATION public.ci IS 'case-insensitive';
ALTER STATISTICS public.k_ab SET STATISTICS 50;
ALTER TEXT SEARCH CONFIGURATION public.cfg ALTER MAPPING FOR asciiword WITH simple, english_stem;
ALTER PUBLICATION k_pub SET (publish = 'insert');
COMMENT ON TEXT SEARCH DICTIONARY public.ledger_words IS 'the ledger''s words';
`
	catalogKindsChangeAdmin = `ALTER EVENT TRIGGER ddl_watch DISABLE; ALTER AGGREGATE public.total(int) OWNER TO service_role`
)

var catalogKindsChanged = map[FactKey]string{
	{KindRule, "k_keep on public.k", "definition"}:             "CREATE RULE k_keep AS\n    ON DELETE TO public.k DO NOTHING;",
	{KindOperator, "public.===(integer, integer)", "restrict"}: "eqsel(internal,oid,internal,integer)",
	{KindCast, "(integer AS public.mark)", "comment"}:          "marks",
	{KindCollation, "public.ci", "comment"}:                    "case-insensitive",
	{KindStatistics, "public.k_ab", "target"}:                  "50",
	{KindTextSearchConfig, "public.cfg", "mapping:asciiword"}:  "simple, english_stem",
	{KindPublication, "k_pub", "publish"}:                      "insert",
	{KindTextSearchDict, "public.ledger_words", "comment"}:     "the ledger's words",
	{KindEventTrigger, "ddl_watch", "enabled"}:                 "disabled",
	{KindFunction, "public.total(integer)", "owner"}:           "service_role",
}

// catalogKindsDrop drops what catalogKinds created beyond tables, types and functions
// (catalogKindsDropAdmin what catalogKindsAdmin created).
const (
	catalogKindsDropAdmin = `DROP EVENT TRIGGER ddl_watch; DROP PUBLICATION public_all`
	catalogKindsDrop      = `
DROP RULE k_keep ON public.k;
DROP CAST (int AS public.mark);
DROP PUBLICATION k_pub;
DROP TEXT SEARCH CONFIGURATION public.cfg;
DROP TEXT SEARCH DICTIONARY public.ledger_words;
DROP STATISTICS public.k_ab;
DROP COLLATION public.ci;
DROP OPERATOR public.=== (int, int);
`
)

// TestCatalogKindsInFootprint creates, changes and drops an object of every catalog kind beyond
// relations, types and functions, and expects each step in the footprint of two snapshots, on
// which parity, the rerun and the upgrade audits all compare: a kind missing from the snapshot
// would make a migration's rule, cast or publication invisible to all three.
func TestCatalogKindsInFootprint(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	admin := scratchtest.ConnectAdmin(t, db)
	opts := testOptions(Options{}, db)
	take := func() *Snapshot {
		t.Helper()
		s, err := Take(ctx, admin, opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	asAdmin := func(sql string) {
		t.Helper()
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}

	before := take()
	scratchtest.Exec(t, db, "kinds.sql", catalogKinds)
	asAdmin(catalogKindsAdmin)
	created := take()
	objects := checkKindsCreated(t, Diff(before, created), created)

	scratchtest.Exec(t, db, "change.sql", catalogKindsChange)
	asAdmin(catalogKindsChangeAdmin)
	checkKindsChanged(t, Diff(created, take()))

	asAdmin(catalogKindsDropAdmin)
	scratchtest.Exec(t, db, "drop.sql", catalogKindsDrop)
	checkKindsDropped(t, Diff(created, take()), objects)
}

// checkKindsCreated fails unless the footprint of catalogKinds creates catalogKindsCreated and
// the snapshot after it reads catalogKindsFacts; it returns the objects the footprint created.
func checkKindsCreated(t *testing.T, fp *Footprint, created *Snapshot) map[ObjectRef]bool {
	t.Helper()
	objects := map[ObjectRef]bool{}
	for _, o := range fp.Created {
		objects[o.ObjectRef] = true
	}
	for _, want := range catalogKindsCreated {
		if !objects[want] {
			t.Errorf("created: no %s", want)
		}
	}
	facts := map[FactKey]string{}
	for _, f := range created.Facts() {
		facts[f.Key()] = f.Value
	}
	for k, want := range catalogKindsFacts {
		if got := facts[k]; got != want {
			t.Errorf("%s %s %s = %q, want %q", k.Kind, k.Object, k.Attr, got, want)
		}
	}
	return objects
}

// checkKindsChanged fails unless the footprint of catalogKindsChange shows catalogKindsChanged
// and creates or drops nothing.
func checkKindsChanged(t *testing.T, changed *Footprint) {
	t.Helper()
	got := map[FactKey]string{}
	for _, c := range changed.Changed {
		got[FactKey{c.Kind, c.Object, c.Attr}] = c.After
	}
	for k, want := range catalogKindsChanged {
		if g, ok := got[k]; !ok || g != want {
			t.Errorf("changed %s %s %s = %q (%v), want %q", k.Kind, k.Object, k.Attr, g, ok, want)
		}
	}
	if n := len(changed.Created) + len(changed.Dropped); n != 0 {
		t.Errorf("changing attributes created or dropped %d objects: %+v %+v", n, changed.Created, changed.Dropped)
	}
}

// checkKindsDropped fails unless the footprint of catalogKindsDrop drops every object created
// but tables, columns, types, attributes and functions.
func checkKindsDropped(t *testing.T, dropped *Footprint, objects map[ObjectRef]bool) {
	t.Helper()
	for _, o := range dropped.Dropped {
		delete(objects, o.ObjectRef)
	}
	for ref := range objects {
		switch ref.Kind {
		case KindTable, KindColumn, KindType, KindAttribute, KindFunction: // not dropped
		default:
			t.Errorf("dropped, but not in the footprint's dropped objects: %s", ref)
		}
	}
}

// TestDeployedScopesRulesAndStatisticsWithTheirTable: a rule or a statistics object that a
// deployment added to a table the migration created is in the deployment's footprint, as an
// index or a trigger is.
func TestDeployedScopesRulesAndStatisticsWithTheirTable(t *testing.T) {
	ref := &Footprint{Created: []ObjectFacts{{ObjectRef: ObjectRef{KindTable, "public.k"}, Facts: []Fact{{Kind: KindTable, Object: "public.k", Attr: "owner", Value: "postgres"}}}}}
	live := &Snapshot{
		Tables:     []Table{{Schema: "public", Name: "k", Owner: "postgres"}, {Schema: "public", Name: "other", Owner: "postgres"}},
		Rules:      []Rule{{Table: "public.k", Name: "keep", Definition: "CREATE RULE keep ..."}, {Table: "public.other", Name: "keep"}},
		Statistics: []Statistics{{Schema: "public", Name: "k_ab", Table: "public.k"}, {Schema: "public", Name: "o_ab", Table: "public.other"}},
	}
	got := map[ObjectRef]bool{}
	for _, o := range Deployed(live, ref).Created {
		got[o.ObjectRef] = true
	}
	for ref, want := range map[ObjectRef]bool{
		{KindRule, "keep on public.k"}: true, {KindStatistics, "public.k_ab"}: true,
		{KindRule, "keep on public.other"}: false, {KindStatistics, "public.o_ab"}: false,
	} {
		if got[ref] != want {
			t.Errorf("Deployed: %s in scope = %v, want %v", ref, got[ref], want)
		}
	}
}
