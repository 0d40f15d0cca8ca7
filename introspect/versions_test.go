package introspect

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// The tests in this file pin values that must read the same on every supported server version
// (PostgreSQL 15 and 17): `make test` runs them on 15, `make test-pg17` on 17, with the same
// expectations unless a test says why not.

// factValues returns the value of every fact of s by "kind object attr".
func factValues(s *Snapshot) map[string]string {
	out := map[string]string{}
	for _, f := range s.Facts() {
		out[f.Kind+" "+f.Object+" "+f.Attr] = f.Value
	}
	return out
}

// TestAllPrivilegesReadAllOnEveryVersion: a grantee that holds every privilege of an object's
// kind reads ALL, so that an owner's default ACL, GRANT ALL and ALTER DEFAULT PRIVILEGES ...
// GRANT ALL are the same value on 15 and on 17, where tables and views gained MAINTAIN. A
// grantee with some privileges keeps its list; one with the 15 set spelled out lacks MAINTAIN on
// 17, which is a real difference there.
func TestAllPrivilegesReadAllOnEveryVersion(t *testing.T) {
	db := scratchtest.NewDatabase(t, 3)
	// In a schema of its own: Supabase's default privileges grant ALL on public's tables and
	// sequences to the API roles.
	scratchtest.Exec(t, db, "grants.sql", `
CREATE SCHEMA gsch;
CREATE TABLE gsch.g (id int);
CREATE VIEW gsch.gv AS SELECT id FROM gsch.g;
CREATE SEQUENCE gsch.gs;
CREATE FUNCTION gsch.gf() RETURNS int LANGUAGE sql AS 'SELECT 1';
GRANT ALL ON gsch.g TO service_role;
GRANT ALL ON gsch.g TO authenticator WITH GRANT OPTION;
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON gsch.g TO authenticated;
GRANT SELECT, UPDATE ON gsch.gv TO anon;
GRANT ALL ON gsch.gv TO service_role;
GRANT ALL ON SEQUENCE gsch.gs TO service_role;
GRANT USAGE ON SEQUENCE gsch.gs TO anon;
GRANT ALL ON SCHEMA gsch TO service_role;
GRANT ALL ON FUNCTION gsch.gf() TO service_role;
GRANT ALL (id) ON gsch.g TO anon;
ALTER DEFAULT PRIVILEGES IN SCHEMA gsch GRANT ALL ON TABLES TO service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA gsch GRANT ALL ON SEQUENCES TO service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA gsch GRANT SELECT ON TABLES TO anon;
`)
	s, err := Take(context.Background(), scratchtest.Connect(t, db), testOptions(Options{}, db))
	if err != nil {
		t.Fatal(err)
	}
	// The seven privileges a table has on 15, spelled out: all of them there; on 17 all but
	// MAINTAIN, so a list.
	fifteen := "ALL"
	if scratchtest.Server(t).Major() >= 17 {
		fifteen = "DELETE, INSERT, REFERENCES, SELECT, TRIGGER, TRUNCATE, UPDATE"
	}
	got := factValues(s)
	for key, want := range map[string]string{
		"table gsch.g acl:postgres":           "ALL", // the owner's default ACL
		"table gsch.g acl:service_role":       "ALL",
		"table gsch.g acl:authenticator":      "ALL*",
		"table gsch.g acl:authenticated":      fifteen,
		"view gsch.gv acl:postgres":           "ALL",
		"view gsch.gv acl:service_role":       "ALL",
		"view gsch.gv acl:anon":               "SELECT, UPDATE",
		"sequence gsch.gs acl:service_role":   "ALL",
		"sequence gsch.gs acl:anon":           "USAGE",
		"schema gsch acl:service_role":        "ALL",
		"function gsch.gf() acl:service_role": "EXECUTE", // one privilege: named, not ALL
		"column gsch.g.id acl:anon":           "INSERT, REFERENCES, SELECT, UPDATE",
		"default privileges for role postgres in schema gsch on tables acl:service_role":    "ALL",
		"default privileges for role postgres in schema gsch on tables acl:anon":            "SELECT",
		"default privileges for role postgres in schema gsch on sequences acl:service_role": "ALL",
	} {
		if got[key] != want {
			t.Errorf("%s = %q, want %q", key, got[key], want)
		}
	}
}

func TestGrantHolds(t *testing.T) {
	for _, tc := range []struct {
		privs []string
		priv  string
		want  bool
	}{
		{[]string{"ALL"}, "MAINTAIN", true},
		{[]string{"ALL*"}, "SELECT", true},
		{[]string{"INSERT", "SELECT*"}, "SELECT", true},
		{[]string{"INSERT", "SELECT*"}, "UPDATE", false},
		{nil, "SELECT", false},
	} {
		if got := (Grant{Grantee: "anon", Privileges: tc.privs}).Holds(tc.priv); got != tc.want {
			t.Errorf("%v holds %s = %v, want %v", tc.privs, tc.priv, got, tc.want)
		}
	}
}

// TestMembershipsReadTheSameOnEveryVersion: a membership is one entry per role, whoever
// granted it (PostgreSQL 16 keeps a grant per grantor); a plain GRANT reads the same on 15 and 17,
// also to a NOINHERIT member; and on 16 and later a grant's INHERIT and SET options show when
// they differ from a plain grant's, which the snapshot did not see before.
func TestMembershipsReadTheSameOnEveryVersion(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 3)
	admin := scratchtest.ConnectAdmin(t, db)
	roles := []string{"lc_m_parent", "lc_m_child", "lc_m_noinherit", "lc_m_noinherit_on", "lc_m_noset", "lc_m_on"}
	exec := func(sql string) {
		t.Helper()
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	t.Cleanup(func() {
		for _, r := range roles {
			_, _ = admin.Exec(ctx, "DROP OWNED BY "+r)
			_, _ = admin.Exec(ctx, "DROP ROLE IF EXISTS "+r)
		}
	})
	modern := scratchtest.Server(t).Major() >= 16
	exec(`CREATE ROLE lc_m_parent NOLOGIN; CREATE ROLE lc_m_child NOLOGIN; CREATE ROLE lc_m_noinherit NOLOGIN NOINHERIT;
		CREATE ROLE lc_m_noinherit_on NOLOGIN NOINHERIT; CREATE ROLE lc_m_noset NOLOGIN; CREATE ROLE lc_m_on NOLOGIN;
		CREATE TABLE public.m (id int);
		GRANT SELECT ON public.m TO lc_m_parent, lc_m_child, lc_m_noinherit, lc_m_noinherit_on, lc_m_noset, lc_m_on;
		GRANT lc_m_parent TO lc_m_child WITH ADMIN OPTION;
		GRANT lc_m_parent TO lc_m_noinherit;
		GRANT lc_m_parent TO lc_m_on;
		GRANT lc_m_parent TO postgres WITH ADMIN OPTION`)
	want := map[string]string{
		"lc_m_child":        "lc_m_parent*",
		"lc_m_noinherit":    "lc_m_parent",
		"lc_m_noinherit_on": "",
		"lc_m_noset":        "",
		"lc_m_on":           "lc_m_parent",
	}
	if modern {
		// A second grant of the same membership by another grantor, then the options 16 added.
		exec(`SET ROLE postgres; GRANT lc_m_parent TO lc_m_child; GRANT lc_m_parent TO lc_m_on; RESET ROLE;
			GRANT lc_m_parent TO lc_m_noinherit_on WITH INHERIT TRUE;
			GRANT lc_m_parent TO lc_m_noset WITH SET FALSE, INHERIT FALSE`)
		want["lc_m_noinherit_on"] = "lc_m_parent (inherit true)"
		want["lc_m_noset"] = "lc_m_parent (inherit false, set false)"
	}
	s, err := Take(ctx, admin, testOptions(Options{}, db))
	if err != nil {
		t.Fatal(err)
	}
	got := factValues(s)
	for role, w := range want {
		if g := got["role "+role+" member_of"]; g != w {
			t.Errorf("role %s member_of = %q, want %q", role, g, w)
		}
	}
}

// TestViewDefinitionsReadTheSameOnEveryVersion: PostgreSQL 16 stopped qualifying the columns of
// a view that reads one relation; the compared value of a view's definition is the same on 15
// and 17, and the printed definition stays what the server printed.
func TestViewDefinitionsReadTheSameOnEveryVersion(t *testing.T) {
	db := scratchtest.NewDatabase(t, 3)
	scratchtest.Exec(t, db, "views.sql", `
CREATE TABLE public.vt (id int PRIMARY KEY, n int);
CREATE TABLE public.vu (id int, vt_id int);
CREATE VIEW public.one AS SELECT id, n FROM public.vt WHERE n > 0 ORDER BY n;
CREATE VIEW public.correlated AS SELECT x.id, (SELECT count(*) FROM public.vu WHERE vu.vt_id = x.id) AS c FROM public.vt x;
CREATE MATERIALIZED VIEW public.mat AS SELECT n, count(*) AS c FROM public.vt GROUP BY n WITH NO DATA;
`)
	s, err := Take(context.Background(), scratchtest.Connect(t, db), testOptions(Options{}, db))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"public.one":        "SELECT id, n FROM public.vt WHERE n > 0 ORDER BY n",
		"public.correlated": "SELECT id, (SELECT count(*) AS count FROM public.vu WHERE vu.vt_id = x.id) AS c FROM public.vt x",
		"public.mat":        "SELECT n, count(*) AS c FROM public.vt GROUP BY n",
	}
	for _, f := range s.Facts() {
		if f.Kind != KindView || f.Attr != "definition" {
			continue
		}
		if w, ok := want[f.Object]; ok && f.Value != w {
			t.Errorf("view %s: definition compares as %q, want %q", f.Object, f.Value, w)
		}
		if !strings.Contains(f.Shown(), "FROM public.vt") {
			t.Errorf("view %s: shown as %q, want the server's pg_get_viewdef", f.Object, f.Shown())
		}
		delete(want, f.Object)
	}
	for v := range want {
		t.Errorf("no definition fact for view %s", v)
	}
}
