package observe_test

import (
	"context"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/observe"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// staffByMetadata lets staff, whom a definer helper recognises by the role in their row of
// auth.users (raw_user_meta_data), read every note.
const staffByMetadata = `CREATE OR REPLACE FUNCTION public.is_staff() RETURNS boolean
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT coalesce((SELECT u.raw_user_meta_data ->> 'team' = 'staff' FROM auth.users u WHERE u.id = (SELECT auth.uid())), false);
$$;
GRANT EXECUTE ON FUNCTION public.is_staff() TO authenticated;
CREATE TABLE public.staff_notes (id int PRIMARY KEY, note text);
ALTER TABLE public.staff_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY staff_read ON public.staff_notes FOR SELECT TO authenticated USING ((SELECT public.is_staff()));
GRANT SELECT ON public.staff_notes TO authenticated;
`

// TestMetadataIsPutBackInAuthUsers: the observation sets user A's user_metadata in his row of
// auth.users while the requests that set it run, and it sees what the helper lets through; once
// it is over, his row holds what it held before (the observation's own users start with {}), so
// that no later request, nor the next round, runs as a user who set what he did not.
func TestMetadataIsPutBackInAuthUsers(t *testing.T) {
	ctx := context.Background()
	db, err := scratchtest.Server(t).NewDatabaseFrom(ctx, 1536, scratch.Base{Privileges: scratch.NewProjectPrivileges})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Drop(context.Background()) })
	f, err := sqlscript.Parse("staff.sql", []byte(staffByMetadata), 1536)
	if err != nil {
		t.Fatal(err)
	}
	fp, after, err := install.Footprint(ctx, db, sqlscript.Script(f), nil, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ob, err := observe.Run(ctx, db, observe.Input{Model: "new-defaults", Scope: observe.ScopeOf(fp, []string{"public"}), Snapshot: after, Dim: 1536})
	if err != nil {
		t.Fatal(err)
	}
	widened := false
	for _, f := range observe.Findings(observe.FindingsInput{File: f}, []*observe.Observation{ob}) {
		widened = widened || f.Rule == observe.RuleClientValueWidensAccess
	}
	if !widened {
		t.Fatal("no client-value-widens-access: the metadata was never set, so its putting back proves nothing")
	}
	admin := scratchtest.ConnectAdmin(t, db)
	var md string
	if err := admin.QueryRow(ctx, `SELECT raw_user_meta_data::text FROM auth.users WHERE id = $1`, observe.UserA).Scan(&md); err != nil {
		t.Fatal(err)
	}
	if md != "{}" {
		t.Errorf("user A's raw_user_meta_data after the observation: %s, want {}", md)
	}
}
