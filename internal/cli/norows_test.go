package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// Without a fixture, a Supabase project's table whose rows belong to users (owner DEFAULT
// auth.uid(), a key into auth.users) is rerun over generated rows that belong to users of
// auth.users; a table no generated row gets into (a CHECK no value meets) leaves the rerun
// nothing to lose, and the phase says skip, naming the column that stopped the rows, instead of
// passing over 0 rows with a note.
func TestRerunOverNoRowIsASkip(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster")
	}
	type phase struct {
		Name, Status string
		Notes        []string
		Counts       map[string]int
	}
	rerunOf := func(t *testing.T, name, src string) phase {
		t.Helper()
		file := writeSQL(t, name, src)
		code, out, errs := runCLI(t, "rerun", "-q", file, "--no-fixture", "--times", "2", "--format", "json")
		skipWithoutPostgres(t, code, errs)
		var doc struct{ Phases []phase }
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Phases) == 0 {
			t.Fatalf("rerun %s: exit %d, %v\n%s%s", name, code, err, out, errs)
		}
		return doc.Phases[0]
	}
	owned := rerunOf(t, "owned.sql", `create table if not exists public.todos (
  id bigint generated always as identity primary key,
  owner uuid not null default auth.uid(),
  title text not null
);
create table if not exists public.profiles (
  user_id uuid primary key references auth.users (id) on delete cascade,
  display_name text not null
);
notify pgrst, 'reload schema';
`)
	if owned.Status != "pass" || owned.Counts["generated_rows"] == 0 {
		t.Errorf("rerun of tables owned by users: %s, %d generated rows, notes %q; want pass over generated rows", owned.Status, owned.Counts["generated_rows"], owned.Notes)
	}
	refused := rerunOf(t, "codes.sql", `create table if not exists public.codes (
  id bigint generated always as identity primary key,
  code text not null check (length(code) > 1000)
);
notify pgrst, 'reload schema';
`)
	notes := strings.Join(refused.Notes, "\n")
	if refused.Status != "skip" || !strings.Contains(notes, "but over no row") || !strings.Contains(notes, `violates check constraint "codes_code_check" (column code)`) {
		t.Errorf("rerun over no row: %s, notes %q; want skip, naming the column that stopped the rows", refused.Status, notes)
	}
}
