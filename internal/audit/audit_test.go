package audit

import (
	"context"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/golden"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// The static privilege model lint applies (read from the environment's SQL) is what a fresh
// scratch database reports in pg_default_acl for objects the install role creates.
func TestEnvironmentDefaultsMatchTheCatalog(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1536)
	conn := scratchtest.Connect(t, db)
	rows, err := conn.Query(context.Background(), `
		SELECT coalesce(n.nspname, ''), d.defaclobjtype::text, coalesce(nullif(a.grantee::regrole::text, '-'), 'public'), a.privilege_type
		FROM pg_default_acl d
		LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace
		CROSS JOIN LATERAL aclexplode(d.defaclacl) a
		WHERE d.defaclrole = $1::regrole AND a.grantee <> d.defaclrole`, db.InstallRole())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{"r": "table", "S": "sequence", "f": "function"}
	var got []string
	for rows.Next() {
		var schema, kind, grantee, priv string
		if err := rows.Scan(&schema, &kind, &grantee, &priv); err != nil {
			t.Fatal(err)
		}
		if grantee == "0" {
			grantee = "public"
		}
		got = append(got, schema+" "+kinds[kind]+" "+grantee+" "+strings.ToLower(priv))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, d := range lint.EnvironmentDefaults() {
		if d.Revoke || d.Grantee == lint.InstallRole {
			continue
		}
		for _, p := range d.Privileges {
			want = append(want, d.Schema+" "+string(d.Kind)+" "+d.Grantee+" "+p)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	want = slices.Compact(want)
	if !slices.Equal(got, want) {
		t.Errorf("pg_default_acl of a fresh scratch database:\n%s\nlint's model:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(want) == 0 {
		t.Error("lint's model has no default privilege: the environment's SQL was not read")
	}
}

// installed installs sql (the file name) over the prerequisites at dim and returns its parse,
// its footprint and a superuser connection to the database.
func installed(tb testing.TB, name, sql string, dim int) (*pgsql.File, *introspect.Footprint, *pgx.Conn) {
	tb.Helper()
	return installedIn(tb, scratchtest.NewDatabase(tb, dim), name, sql)
}

// installedIn is installed, in db.
func installedIn(tb testing.TB, db *scratch.Database, name, sql string) (*pgsql.File, *introspect.Footprint, *pgx.Conn) {
	tb.Helper()
	ctx := context.Background()
	f, err := sqlscript.Parse(name, []byte(sql), db.Dim)
	if err != nil {
		tb.Fatal(err)
	}
	fp, _, err := install.Footprint(ctx, db, sqlscript.Script(f), nil, introspect.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
	return f, fp, conn
}

// installAndAudit installs sql over the prerequisites at 1536 and audits it.
func installAndAudit(t testing.TB, name, sql string, cfg lint.Config) []string {
	t.Helper()
	f, fp, conn := installed(t, name, sql, 1536)
	fs, err := Check(context.Background(), conn, Input{File: f, Footprint: fp, Lint: cfg, Static: lint.Run(f, cfg, lint.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fd := range fs {
		s := fd.String()
		if fd.Detail != "" {
			s += " | " + fd.Detail
		}
		out = append(out, s)
	}
	return out
}

// A definer function created by dynamic SQL is found in the catalog, at its EXECUTE; a
// configured caller is not reported; a fact lint reported is not repeated.
func TestAuditDefinerFunctions(t *testing.T) {
	const sql = `DO $$ BEGIN
  EXECUTE format('CREATE FUNCTION public.f(p integer) RETURNS integer LANGUAGE sql SECURITY DEFINER SET search_path = %L AS ''SELECT p''', 'public');
END $$;
REVOKE EXECUTE ON FUNCTION public.f(integer) FROM PUBLIC;
CREATE FUNCTION public.g() RETURNS integer LANGUAGE sql SECURITY DEFINER SET search_path = '' AS 'SELECT 1';
NOTIFY pgrst, 'reload schema';
`
	cfg := lint.Config{DefinerCallers: []lint.DefinerCaller{{Function: "public.f(integer)", Roles: []string{"authenticated"}, Reason: "the test"}}}
	got := installAndAudit(t, "d.sql", sql, cfg)
	want := []string{"d.sql:2:3: error: anon can execute SECURITY DEFINER function public.f(integer), with its owner's rights, through the Data API; REVOKE EXECUTE ... FROM PUBLIC, anon, authenticated [definer-executable-by-anon]"}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every check of the audit on one migration: 0002, 0007, 0010, 0013, 0014, 0016, 0024.
func TestAuditChecks(t *testing.T) {
	const sql = `CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE public.open_table (id int);
CREATE TABLE public.notes (id int, owner uuid);
CREATE POLICY notes_all ON public.notes FOR ALL TO service_role USING (true);
CREATE TABLE public.inbox (id int);
ALTER TABLE public.inbox ENABLE ROW LEVEL SECURITY;
CREATE POLICY inbox_delete ON public.inbox FOR DELETE TO anon USING (true);
CREATE POLICY inbox_read ON public.inbox FOR SELECT TO anon USING (true);
CREATE VIEW public.emails AS SELECT id, email FROM auth.users;
CREATE VIEW public.safe_emails WITH (security_invoker = true) AS SELECT id FROM public.notes;
CREATE MATERIALIZED VIEW public.counts AS SELECT count(*) FROM public.notes;
GRANT SELECT ON public.emails, public.safe_emails, public.counts TO authenticated;
NOTIFY pgrst, 'reload schema';
`
	got := installAndAudit(t, "c.sql", sql, lint.Config{})
	var rules []string
	for _, g := range got {
		rules = append(rules, g[strings.LastIndex(g, "[")+1:len(g)-1]+"@"+strings.Split(g, ":")[1])
	}
	want := []string{"extension-in-public@1", "policy-always-true@7", "auth-users-exposed@9", "security-definer-view@9", "materialized-view-in-api@11"}
	// 0013 and 0007 on open_table and notes are lint's table-rls-disabled: not repeated.
	if !slices.Equal(rules, want) {
		t.Errorf("got\n%s\nwant rules@lines %v", strings.Join(got, "\n"), want)
	}
}

// BenchmarkAudit measures what the audit adds to one install of each shipped variant: its one
// query and the findings, on the installed database (the install itself is not timed).
func BenchmarkAudit(b *testing.B) {
	for _, v := range []struct {
		file string
		dim  int
	}{{"../../migrations/decision_ledger.sql", 1536}, {"../../migrations/ports/decision_ledger_1024.sql", 1024}} {
		b.Run(v.file[strings.LastIndex(v.file, "/")+1:], func(b *testing.B) {
			src, err := os.ReadFile(v.file)
			if err != nil {
				b.Fatal(err)
			}
			f, fp, conn := installed(b, v.file, string(src), v.dim)
			ctx := context.Background()
			static := lint.Run(f, lint.Config{}, lint.Options{})
			b.ResetTimer()
			for b.Loop() {
				if _, err := Check(ctx, conn, Input{File: f, Footprint: fp, Static: static}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Effective access: a policy whose condition every request of a role meets opens every row to
// it (auth.role() = 'authenticated' on a FOR ALL TO public policy; USING (true) for SELECT to
// authenticated, whose grant configuration accepts), and points at that policy (not at the
// table's CREATE); a restrictive policy that tests the row, or a permissive one that tests the
// owner, opens nothing. A policy that is literally true on a write is policy-always-true's,
// reported once.
func TestAuditEffectiveAccess(t *testing.T) {
	const sql = `CREATE TABLE public.notes (id int, owner_id uuid);
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Users manage their own notes" ON public.notes FOR ALL USING (auth.role() = 'authenticated');
GRANT SELECT, INSERT, UPDATE, DELETE ON public.notes TO authenticated;
CREATE TABLE public.recipes (id int);
ALTER TABLE public.recipes ENABLE ROW LEVEL SECURITY;
CREATE POLICY recipes_read ON public.recipes FOR SELECT TO authenticated USING (true);
CREATE POLICY recipes_update ON public.recipes FOR UPDATE TO authenticated USING (true);
GRANT SELECT, UPDATE ON public.recipes TO authenticated;
CREATE TABLE public.journal (id int, owner_id uuid);
ALTER TABLE public.journal ENABLE ROW LEVEL SECURITY;
CREATE POLICY journal_read ON public.journal FOR SELECT TO authenticated USING ((select auth.uid()) IS NOT NULL);
CREATE POLICY journal_own ON public.journal AS RESTRICTIVE FOR SELECT TO authenticated USING (owner_id = auth.uid());
CREATE TABLE public.pins (id int, owner_id uuid);
ALTER TABLE public.pins ENABLE ROW LEVEL SECURITY;
CREATE POLICY pins_owner ON public.pins FOR ALL TO authenticated USING (owner_id = auth.uid());
GRANT SELECT, INSERT, UPDATE, DELETE ON public.journal, public.pins TO authenticated;
NOTIFY pgrst, 'reload schema';
`
	got := installAndAudit(t, "a.sql", sql, lint.Config{AllowedGrantees: []string{"authenticated"}})
	want := []string{
		`a.sql:3:1: error: authenticated can read every row of table public.notes: policy "Users manage their own notes" is always true for them; test the row (auth.uid() = owner_id), or accept it with ledgercheck:ignore api-reads-every-row [api-reads-every-row] | USING (auth.role() = 'authenticated'::text)`,
		`a.sql:3:1: error: authenticated can INSERT, UPDATE, DELETE every row of table public.notes: policy "Users manage their own notes" is always true for them; test the row (auth.uid() = owner_id), or accept it with ledgercheck:ignore api-writes-every-row [api-writes-every-row] | USING (auth.role() = 'authenticated'::text)`,
		`a.sql:7:1: error: authenticated can read every row of table public.recipes: policy "recipes_read" is always true for them; test the row (auth.uid() = owner_id), or accept it with ledgercheck:ignore api-reads-every-row [api-reads-every-row] | USING true`,
		`a.sql:8:1: error: policy recipes_update on public.recipes lets authenticated update every row (USING/WITH CHECK true); test the row, e.g. auth.uid() = user_id [policy-always-true]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Two reviewed facts do not add up to a reviewed exposure: a table whose missing row level
// security and whose grant to anon are each suppressed is still reported as anon reading every
// row; accepting that takes a suppression of its own.
func TestAuditSuppressionCoversOneFact(t *testing.T) {
	const sql = `-- ledgercheck:ignore table-rls-disabled the feed is public by design
CREATE TABLE public.public_feed (id int, body text);
-- ledgercheck:ignore grant-to-api-role visitors read the feed
GRANT SELECT ON public.public_feed TO anon;
GRANT SELECT ON public.public_feed TO service_role;
NOTIFY pgrst, 'reload schema';
`
	got := installAndAudit(t, "s.sql", sql, lint.Config{})
	want := []string{"s.sql:2:1: error: anon can SELECT table public.public_feed, which is in an exposed schema without row level security: they read every row through the Data API (and write it where granted); ENABLE ROW LEVEL SECURITY [rls-disabled-in-public]"}
	if !slices.Equal(got, want) {
		t.Errorf("two suppressed facts:\ngot\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	accepted := strings.Replace(sql, "CREATE TABLE public.public_feed", "-- ledgercheck:ignore rls-disabled-in-public anon reading every row of the feed is the point of it\nCREATE TABLE public.public_feed", 1)
	if got := installAndAudit(t, "s.sql", accepted, lint.Config{}); len(got) != 0 {
		t.Errorf("the exposure accepted with its own suppression: %s", strings.Join(got, "\n"))
	}
}

// The shadow attacks of issue 22 on the audit's superuser session: functions and operators that
// are better matches than pg_catalog's for the audit's arguments (quote_ident(name) that
// mis-quotes every name, unnest(oid[]) that returns nothing, =(oid, integer) that is always false,
// &&(text[], text[]) that is always true), in public and in a schema named after the superuser
// ("$user" on a default search path). Had the audit resolved any of them, it would miss the
// anon-readable table without row level security that a DO block created; it must still report it.
func TestAuditIgnoresShadowsOfPgCatalog(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1536)
	shadows := ""
	for _, s := range []string{"public", `"` + db.AdminRole() + `"`} {
		shadows += strings.NewReplacer("S.", s+".").Replace(`
CREATE FUNCTION S.quote_ident(name) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'nope'::text$$;
CREATE FUNCTION S.unnest(oid[]) RETURNS SETOF oid LANGUAGE sql IMMUTABLE AS $$SELECT 0::oid WHERE false$$;
CREATE FUNCTION S.lc_false(oid, integer) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$SELECT false$$;
CREATE OPERATOR S.= (LEFTARG = oid, RIGHTARG = integer, FUNCTION = S.lc_false);
CREATE FUNCTION S.lc_true(text[], text[]) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$SELECT true$$;
CREATE OPERATOR S.&& (LEFTARG = text[], RIGHTARG = text[], FUNCTION = S.lc_true);
`)
	}
	sql := `CREATE SCHEMA IF NOT EXISTS "` + db.AdminRole() + `";
` + shadows + `
DO $$ BEGIN
  EXECUTE 'CREATE TABLE public.leak (id int PRIMARY KEY, secret text)';
  EXECUTE 'GRANT SELECT ON public.leak TO anon';
END $$;
NOTIFY pgrst, 'reload schema';
`
	f, fp, conn := installedIn(t, db, "shadows.sql", sql)
	fs, err := Check(context.Background(), conn, Input{File: f, Footprint: fp, Lint: lint.Config{}, Static: nil})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, fd := range fs {
		if fd.Rule == RuleRLSDisabledInPublic && strings.Contains(fd.Message, "public.leak") {
			found = true
		}
	}
	if !found {
		t.Errorf("the audit missed public.leak (no RLS, selectable by anon) among:\n%v", fs)
	}
}

// A suppression of an every-row finding reviewed before it pointed at its policy (at the
// table's CREATE) still accepts it, as one at the policy does.
func TestAuditEveryRowSuppressedAtEitherStatement(t *testing.T) {
	const sql = `-- ledgercheck:ignore api-reads-every-row recipes are shared with every signed-in user
CREATE TABLE public.recipes (id int);
ALTER TABLE public.recipes ENABLE ROW LEVEL SECURITY;
CREATE POLICY recipes_read ON public.recipes FOR SELECT TO authenticated USING (true);
CREATE TABLE public.menus (id int);
ALTER TABLE public.menus ENABLE ROW LEVEL SECURITY;
-- ledgercheck:ignore api-reads-every-row menus are shared with every signed-in user
CREATE POLICY menus_read ON public.menus FOR SELECT TO authenticated USING (true);
GRANT SELECT ON public.recipes, public.menus TO authenticated;
NOTIFY pgrst, 'reload schema';
`
	if got := installAndAudit(t, "s.sql", sql, lint.Config{AllowedGrantees: []string{"authenticated"}}); len(got) > 0 {
		t.Errorf("got\n%s\nwant nothing: both are suppressed", strings.Join(got, "\n"))
	}
}

// 0021: a foreign key to a unique constraint of auth.users other than its primary key is a
// warning at the table; one to its id is not.
func TestAuditForeignKeyToAuthUnique(t *testing.T) {
	const sql = `CREATE TABLE public.invites (id bigint PRIMARY KEY, email varchar(255) REFERENCES auth.users (email));
CREATE TABLE public.members (id bigint PRIMARY KEY, user_id uuid REFERENCES auth.users (id));
NOTIFY pgrst, 'reload schema';
`
	got := installAndAudit(t, "f.sql", sql, lint.Config{})
	golden.Check(t, "testdata/golden/fkey-to-auth-unique.txt", []byte(strings.Join(got, "\n")+"\n"))
	var rules []string
	for _, g := range got {
		if strings.Contains(g, "[fkey-to-auth-unique]") {
			rules = append(rules, g[:strings.Index(g, ": ")])
		}
	}
	if !slices.Equal(rules, []string{"f.sql:1:1"}) {
		t.Errorf("fkey-to-auth-unique at %v, want f.sql:1:1 alone:\n%s", rules, strings.Join(got, "\n"))
	}
}
