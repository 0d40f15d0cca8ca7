package gate

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// A template's description (its snapshot, taken on the session that built it and kept in the
// cache entry) is what a fresh copy of the template snapshots to: the footprint of every install
// starts from it instead of a snapshot of each new database.
func TestTemplateDescriptionIsTheSnapshotOfAFreshCopy(t *testing.T) {
	ctx := context.Background()
	srv := scratchtest.Server(t)
	// Prerequisite files give the template a key of its own, so this test builds it (the
	// package's server may hold the plain templates already, built without a description).
	base := baseFor(false, []SQLFile{{Name: "deps/tags.sql", Src: []byte(sidecar(t, "deps/tags.sql"))}})
	db, err := srv.NewDatabaseFrom(ctx, 1024, base)
	if err != nil {
		t.Fatal(err)
	}
	desc := srv.TemplateDescription(1024, base)
	if desc == nil {
		t.Fatal("the template built with a Describe has no description")
	}
	var described introspect.Snapshot
	if err := json.Unmarshal(desc, &described); err != nil {
		t.Fatal(err)
	}
	conn := scratchtest.ConnectAdmin(t, db)
	taken, err := install.SnapshotOn(ctx, db, conn, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(taken.Tables) == 0 || len(taken.Functions) == 0 {
		t.Fatalf("the copy's snapshot holds %d tables and %d functions: nothing to compare", len(taken.Tables), len(taken.Functions))
	}
	if d := introspect.Diff(&described, taken); !d.Empty() {
		t.Errorf("the description differs from a fresh copy's snapshot:\n%v", d)
	}
}

// hijackPrerequisite is a prerequisite file (user SQL, run as the install role while the
// superuser session that will describe the template is open in the same database) that lays
// traps for that session: functions in public with the exact signatures of catalog functions the
// snapshot queries call, which a session with public first in its search_path would run as the
// superuser, recording who ran them; and an attempt to terminate each session of another role in
// the database (the superuser's among them), one at a time. Sessions of postgres are spared: the
// sentinel beside every script is one, and ending it is a finding of its own (login.go), which a
// single statement over all sessions made or not depending on the order pg_stat_activity lists
// them in.
const hijackPrerequisite = `
CREATE TABLE public.ran_as (who text);
GRANT INSERT ON public.ran_as TO PUBLIC;
CREATE FUNCTION public.format_type(oid, integer) RETURNS text LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran_as VALUES (current_user); RETURN 'integer'; END $$;
CREATE FUNCTION public.pg_get_functiondef(oid) RETURNS text LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran_as VALUES (current_user); RETURN ''; END $$;
CREATE FUNCTION public.acldefault("char", oid) RETURNS aclitem[] LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran_as VALUES (current_user); RETURN '{}'; END $$;
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND usename <> current_user
  LOOP
    BEGIN
      PERFORM pg_terminate_backend(r.pid);
    EXCEPTION WHEN others THEN NULL;
    END;
  END LOOP;
END $$;
`

// A prerequisite file cannot make the superuser session that describes its template run its
// code (the snapshot queries resolve every unqualified name in pg_catalog only), nor end that
// session: the template is described, and nothing of the file ran as anyone but the install role.
func TestPrerequisiteCannotHijackTheDescribingSession(t *testing.T) {
	ctx := context.Background()
	srv := scratchtest.Server(t)
	base := baseFor(false, []SQLFile{{Name: "traps.sql", Src: []byte(hijackPrerequisite)}})
	db, err := srv.NewDatabaseFrom(ctx, 1536, base)
	if err != nil {
		t.Fatal(err)
	}
	if srv.TemplateDescription(1536, base) == nil {
		t.Fatal("the template with the traps was not described")
	}
	conn := scratchtest.ConnectAdmin(t, db)
	var ran []string
	rows, _ := conn.Query(ctx, `SELECT who FROM public.ran_as`)
	for rows.Next() {
		var who string
		if err := rows.Scan(&who); err != nil {
			t.Fatal(err)
		}
		ran = append(ran, who)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ran) > 0 {
		t.Errorf("the traps ran as %v while the template was described", ran)
	}
	// The traps work: a superuser session that searched public first would have sprung them.
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var who string
	if _, err := tx.Exec(ctx, `SET LOCAL search_path = public, pg_catalog`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT format_type(23, NULL)`); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `SELECT who FROM public.ran_as`).Scan(&who); err != nil || who != db.AdminRole() {
		t.Errorf("the trap, called by a superuser searching public first, recorded %q (%v); the test cannot tell", who, err)
	}
}
