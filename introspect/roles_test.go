package introspect

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// TestRolesAreSeenFromTheDatabase: a role created and granted in another database of the same
// cluster does not show up in this database's footprint (so installs can run side by side),
// while the same statements here do.
func TestRolesAreSeenFromTheDatabase(t *testing.T) {
	ctx := context.Background()
	a := scratchtest.NewDatabase(t, 1536)
	b := scratchtest.NewDatabase(t, 1024)
	const script = `DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lc_side_role') THEN CREATE ROLE lc_side_role NOLOGIN; END IF;
END $$;
CREATE TABLE IF NOT EXISTS public.side (id int);
GRANT SELECT ON public.side TO lc_side_role;
GRANT lc_side_role TO service_role;
`
	connA := scratchtest.Connect(t, a)
	before, err := Take(ctx, connA, Options{NormalizeBody: pgsql.NormalizeBody})
	if err != nil {
		t.Fatal(err)
	}
	scratchtest.Exec(t, b, "side.sql", script)
	after, err := Take(ctx, connA, Options{NormalizeBody: pgsql.NormalizeBody})
	if err != nil {
		t.Fatal(err)
	}
	if fp := Diff(before, after); !fp.Empty() {
		t.Errorf("database %s saw another database's role changes:\n%s", a.Name, dumpFootprint(fp))
	}
	fp, _, err := footprintOf(ctx, a, "side.sql", []byte(script), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := dumpFootprint(fp)
	for _, want := range []string{"role lc_side_role", "member_of"} {
		if !strings.Contains(got, want) {
			t.Errorf("footprint of the same script here lacks %q:\n%s", want, got)
		}
	}
}
