package repository

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// `**` matches any number of directories, none included; other segments match as path.Match.
func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"schemas/**/*.sql", "schemas/people/schema.sql", true},
		{"schemas/**/*.sql", "schemas/a/b/c.sql", true},
		{"schemas/**/*.sql", "schemas/top.sql", true},
		{"schemas/**/*.sql", "recipes/a/b.sql", false},
		{"**/schema.sql", "schemas/people/schema.sql", true},
		{"*/*/schema.sql", "schemas/people/schema.sql", true},
		{"*/schema.sql", "schemas/people/schema.sql", false},
		{"[", "x.sql", false},
	} {
		if got := MatchGlob(tc.pattern, tc.path); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %t, want %t", tc.pattern, tc.path, got, tc.want)
		}
	}
}

// A sidecar is named after its directory, with its file's stem where the directory holds more
// than one sidecar; names that would collide take their parent directories; files that are not
// sidecars do not count.
func TestSidecarNames(t *testing.T) {
	files := []Found{
		{Path: "recipes/foo/a.sql"}, {Path: "recipes/foo/b.sql"}, {Path: "recipes/foo/seed.sql", Kind: Seed},
		{Path: "schemas/people/schema.sql"}, {Path: "schemas/foo/schema.sql"}, {Path: "extensions/foo/schema.sql"},
		{Path: "top.sql"}, {Path: "Odd Dir/x y.sql"},
	}
	got := sidecarNames(files)
	want := []string{"foo-a", "foo-b", "", "people", "schemas-foo", "extensions-foo", "top", "Odd-Dir"}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("%s: named %q, want %q", files[i].Path, got[i], w)
		}
	}
}

// needsOfSQL finds the needs of sidecars given as name and SQL.
func needsOfSQL(t *testing.T, files ...[2]string) map[string][]Need {
	t.Helper()
	var in []NeedsOf
	for _, f := range files {
		parsed, uses, err := pgsql.ParseUses(f[0]+".sql", []byte(f[1]))
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, NeedsOf{Sidecar: f[0], File: parsed, Uses: uses})
	}
	out := map[string][]Need{}
	for i, n := range FindNeeds(in, config.DefaultLint()) {
		out[in[i].Sidecar] = n
	}
	return out
}

// What a reading cannot settle is uncertain: a column of a PL/pgSQL record (NEW), a function
// called with another number of arguments than it takes, an object two sidecars create. What
// the prerequisites hold is no need, and neither is what a file creates itself.
func TestFindNeedsCertainty(t *testing.T) {
	needs := needsOfSQL(t,
		[2]string{"cols", "ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS mood text;\nCREATE TABLE public.a (id int);\nCREATE FUNCTION public.f(int, int) RETURNS int LANGUAGE sql AS 'SELECT 1';"},
		[2]string{"also-a", "CREATE TABLE IF NOT EXISTS public.a (id int);"},
		[2]string{"user", `CREATE FUNCTION public.g() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.mood IS NULL THEN RETURN NULL; END IF; RETURN NEW; END $$;
CREATE TRIGGER g BEFORE INSERT ON public.thoughts FOR EACH ROW EXECUTE FUNCTION public.g();
SELECT public.f(1);
SELECT id FROM public.a;
SELECT content FROM public.thoughts;`},
		[2]string{"self", "ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS mood text;\nSELECT mood FROM public.thoughts;"},
	)
	var got []string
	for _, n := range needs["user"] {
		for _, b := range n.Because {
			got = append(got, fmt.Sprintf("%s: %s", n.Sidecar, b.String(n.Sidecar)))
		}
	}
	want := strings.Join([]string{
		"cols: reads column public.thoughts.mood (line 1), which cols adds (uncertain)",
		"cols: calls function public.f(integer, integer) (line 3), which cols creates (uncertain)",
		"cols: reads table public.a (line 4), which cols creates (uncertain)",
	}, "\n")
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("user's needs:\n%s\nwant:\n%s", g, want)
	}
	if len(needs["self"]) != 0 || len(needs["also-a"]) != 0 {
		t.Errorf("needs of a file that adds the column it reads: %v; of one that creates what another creates too: %v; want none", needs["self"], needs["also-a"])
	}
}

// A cycle of needs loses its uncertain need first; a configuration cannot hold a cycle.
func TestAcyclic(t *testing.T) {
	needs := [][]Need{
		{{Sidecar: "b", Certain: true}},
		{{Sidecar: "c", Certain: false}},
		{{Sidecar: "a", Certain: true}},
	}
	dropped := Acyclic([]string{"a", "b", "c"}, needs)
	if len(dropped) != 1 || dropped[0].Sidecar != "b" || dropped[0].Need.Sidecar != "c" || len(needs[1]) != 0 {
		t.Errorf("dropped %+v, needs %+v; want b's uncertain need of c dropped", dropped, needs)
	}
}

// A file needs the sidecar whose policy it alters (by its table), whose schema its objects go
// into, whose function it grants on (by its argument types), whose type it names (unqualified,
// through the search path), and, uncertainly, the one that creates the extension a function it
// calls comes from.
func TestFindNeedsPoliciesSchemasExtensions(t *testing.T) {
	needs := needsOfSQL(t,
		[2]string{"app", "CREATE SCHEMA IF NOT EXISTS app;\nCREATE TABLE app.t (id int);\nCREATE POLICY p ON app.t FOR SELECT TO service_role USING (true);\nCREATE FUNCTION app.f(p text) RETURNS int LANGUAGE sql AS 'SELECT 1';\nCREATE TYPE public.mood AS ENUM ('calm');"},
		[2]string{"trgm", "CREATE EXTENSION IF NOT EXISTS pg_trgm;"},
		[2]string{"user", "ALTER POLICY p ON app.t USING (false);\nCREATE TABLE app.u (id int);\nGRANT EXECUTE ON FUNCTION app.f(text) TO service_role;\nCREATE VIEW public.v AS SELECT similarity('a', 'b');\nCREATE FUNCTION public.g(m mood) RETURNS int LANGUAGE sql AS 'SELECT 1';"},
	)
	var got []string
	for _, n := range needs["user"] {
		for _, b := range n.Because {
			got = append(got, b.String(n.Sidecar))
		}
	}
	want := strings.Join([]string{
		"reads table app.t (line 1), which app creates",
		"uses type public.mood (line 5), which app creates",
		"changes policy p on app.t (line 1), which app creates",
		"changes function app.f(text) (line 3), which app creates",
		"uses schema app (line 1), which app creates",
		"calls function similarity (line 4), which the extension pg_trgm provides (trgm creates it) (uncertain)",
	}, "\n")
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("user's needs:\n%s\nwant:\n%s", g, want)
	}
}
