package introspect

import (
	"context"
	"slices"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// A database that is exactly what an install produced gives the install's own footprint; what a
// deployment changed afterwards on those objects (or added to the sidecar's tables) shows as a
// difference, and nothing else of the database does.
func TestDeployed(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	const migration = `
CREATE SCHEMA side;
CREATE TABLE public.side (id int PRIMARY KEY, v text DEFAULT 'x');
CREATE INDEX side_v ON public.side (v);
ALTER TABLE public.side ENABLE ROW LEVEL SECURITY;
CREATE POLICY side_all ON public.side FOR ALL TO service_role USING (true);
GRANT SELECT ON public.side TO service_role;
CREATE FUNCTION public.side_f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
CREATE TABLE side.t (x int);
COMMENT ON TABLE public.thoughts IS 'read by the sidecar';
`
	fp, after, err := footprintOf(ctx, db, "m.sql", []byte(migration), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := DiffFacts(fp.Facts(), Deployed(after, fp).Facts()); !d.Empty() {
		t.Fatalf("the install's own database differs from its footprint: %+v", d)
	}
	scratchtest.Exec(t, db, "drift.sql", `
GRANT SELECT ON public.side TO anon;
CREATE INDEX side_extra ON public.side (id, v);
CREATE TABLE side.u (y int);
DROP FUNCTION public.side_f();
COMMENT ON TABLE public.thoughts IS 'changed in production';
CREATE TABLE public.unrelated (x int);
GRANT SELECT ON public.thoughts TO anon;
ALTER TABLE public.agent_memories ADD COLUMN extra int;
`)
	conn := scratchtest.ConnectAdmin(t, db)
	live, err := Take(ctx, conn, testOptions(Options{}, db))
	if err != nil {
		t.Fatal(err)
	}
	d := DiffFacts(fp.Facts(), Deployed(live, fp).Facts())
	var got []string
	for _, o := range d.Created {
		got = append(got, "extra "+o.String())
	}
	for _, o := range d.Dropped {
		got = append(got, "missing "+o.String())
	}
	for _, c := range d.Changed {
		got = append(got, "changed "+c.Kind+" "+c.Object+" "+c.Attr+": "+c.After)
	}
	slices.Sort(got)
	want := []string{
		"changed table public.side acl:anon: SELECT",
		"changed table public.thoughts comment: changed in production",
		"extra index public.side_extra",
		"extra table side.u",
		"missing function public.side_f()",
	}
	if !slices.Equal(got, want) {
		t.Errorf("deployment drift:\n got %q\nwant %q", got, want)
	}
}
