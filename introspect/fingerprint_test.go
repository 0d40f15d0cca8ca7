package introspect

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// fingerprintLeftOut are the tables of pg_catalog that fingerprint.sql does not count, each for
// the reason its header gives.
var fingerprintLeftOut = []string{"pg_auth_members", "pg_authid", "pg_largeobject", "pg_statistic", "pg_statistic_ext_data"}

// TestFingerprintCoversEveryCatalog: every table of the server's pg_catalog is counted by the
// fingerprint, or is one of those it leaves out, and no snapshot query reads one of those but
// the roles' (which the fingerprint compares as the roles query reads them).
func TestFingerprintCoversEveryCatalog(t *testing.T) {
	db := scratchtest.NewDatabase(t, 3)
	ctx := context.Background()
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT relname::text FROM pg_catalog.pg_class WHERE relnamespace = 'pg_catalog'::regnamespace AND relkind = 'r' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	counted := map[string]bool{}
	for _, m := range regexp.MustCompile(`FROM pg_catalog\.(pg_\w+)`).FindAllStringSubmatch(fingerprintSQL, -1) {
		counted[m[1]] = true
	}
	for _, n := range tables {
		if !counted[n] && !slices.Contains(fingerprintLeftOut, n) {
			t.Errorf("%s is a table of pg_catalog that fingerprint.sql does not count", n)
		}
	}
	for _, n := range fingerprintLeftOut {
		if n == "pg_authid" || n == "pg_auth_members" {
			continue
		}
		for _, name := range queryNames {
			src, err := queryFS.ReadFile("queries/" + name + ".sql")
			if err != nil {
				t.Fatal(err)
			}
			if regexp.MustCompile(`\b` + n + `\b`).Match(src) {
				t.Errorf("query %s reads %s, which fingerprint.sql leaves out", name, n)
			}
		}
	}
}

// TestFingerprintSeesEveryChangeASnapshotWould: a fingerprint read later is the snapshot's own,
// and so is a snapshot taken then, after reads, rows inserted, objects created and dropped
// again, and what a role the database does not depend on undergoes; after every kind of
// catalog change a snapshot shows (a row inserted, updated, deleted, an ACL changed, a role the
// database depends on renamed, given a membership or an attribute) both differ.
func TestFingerprintSeesEveryChangeASnapshotWould(t *testing.T) {
	db := scratchtest.NewDatabase(t, 3)
	ctx := context.Background()
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`CREATE ROLE lc_fp_owner; CREATE ROLE lc_fp_other; CREATE ROLE lc_fp_group;
CREATE TABLE public.lc_fp (id int PRIMARY KEY, note text DEFAULT 'x');
ALTER TABLE public.lc_fp OWNER TO lc_fp_owner;
COMMENT ON TABLE public.lc_fp IS 'first'`)
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), `DROP TABLE IF EXISTS public.lc_fp; DROP ROLE IF EXISTS lc_fp_owner, lc_fp_owner2, lc_fp_other, lc_fp_group`)
	})
	opts := Options{Fingerprint: true}
	snap, err := Take(ctx, conn, opts)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Fingerprint() == "" {
		t.Fatal("a snapshot taken with Options.Fingerprint has no fingerprint")
	}
	if plain, err := Take(ctx, conn, Options{}); err != nil || plain.Fingerprint() != "" {
		t.Fatalf("a snapshot taken without Options.Fingerprint has the fingerprint %q (%v)", plain.Fingerprint(), err)
	}
	now := func() string {
		t.Helper()
		fp, err := TakeFingerprint(ctx, conn, opts)
		if err != nil {
			t.Fatal(err)
		}
		return fp
	}
	same := []struct{ name, sql string }{
		{"reads", `SELECT count(*) FROM public.lc_fp`},
		{"rows inserted", `INSERT INTO public.lc_fp VALUES (1)`},
		{"an object created and dropped", `CREATE SCHEMA lc_fp_tmp; CREATE FUNCTION lc_fp_tmp.f() RETURNS int LANGUAGE sql AS 'SELECT 1'; DROP SCHEMA lc_fp_tmp CASCADE`},
		{"a role the database does not depend on", `ALTER ROLE lc_fp_other RENAME TO lc_fp_other2; ALTER ROLE lc_fp_other2 RENAME TO lc_fp_other; GRANT lc_fp_group TO lc_fp_other`},
	}
	take := func() *Snapshot {
		t.Helper()
		s, err := Take(ctx, conn, opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range same {
		exec(c.sql)
		if got := now(); got != snap.Fingerprint() {
			t.Errorf("after %s (%s) the fingerprint changed:\n%s\nto\n%s", c.name, c.sql, snap.Fingerprint(), got)
		}
		if d := Diff(snap, take()); !d.Empty() {
			t.Errorf("after %s the snapshot changed (the test's premise): %v", c.name, d.Facts())
		}
	}
	changed := []struct{ name, sql string }{
		{"a comment updated", `COMMENT ON TABLE public.lc_fp IS 'second'`},
		{"a default dropped", `ALTER TABLE public.lc_fp ALTER COLUMN note DROP DEFAULT`},
		{"a table created", `CREATE TABLE public.lc_fp2 (id int); DROP TABLE public.lc_fp2; CREATE TABLE public.lc_fp2 (id int)`},
		{"a grant", `GRANT SELECT ON public.lc_fp TO lc_fp_other`},
		{"row level security enabled", `ALTER TABLE public.lc_fp ENABLE ROW LEVEL SECURITY`},
		{"an owner renamed", `ALTER ROLE lc_fp_owner RENAME TO lc_fp_owner2`},
		{"an owner given a membership the snapshot shows", `GRANT authenticated TO lc_fp_owner2`},
		{"an owner's attribute", `ALTER ROLE lc_fp_owner2 CREATEDB`},
	}
	for _, c := range changed {
		before, prev := now(), take()
		exec(c.sql)
		if got := now(); got == before {
			t.Errorf("after %s (%s) the fingerprint is the same", c.name, c.sql)
		}
		if Diff(prev, take()).Empty() {
			t.Errorf("after %s the snapshot is the same (the test's premise)", c.name)
		}
	}
	exec(`DROP TABLE public.lc_fp2`)
}
