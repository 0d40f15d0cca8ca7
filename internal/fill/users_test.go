package fill_test

import (
	"context"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/fill"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// A Supabase project's tables belong to users: a column DEFAULT auth.uid() (NULL outside a
// request, so every generated row was refused) and a NOT NULL key into auth.users (which the
// install role may not fill) take the ids of users added to auth.users, and the rows go in;
// without Options.Users nothing goes in, as before, and the result says which column stopped it.
func TestRowsBelongToUsers(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	before, err := install.Snapshot(ctx, db, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	scratchtest.Exec(t, db, "todos.sql", `
CREATE TABLE public.todos (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner uuid NOT NULL DEFAULT auth.uid(),
  title text NOT NULL
);
CREATE TABLE public.profiles (
  user_id uuid NOT NULL PRIMARY KEY REFERENCES auth.users (id) ON DELETE CASCADE,
  display_name text NOT NULL
);`)
	after, err := install.Snapshot(ctx, db, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	conn := scratchtest.Connect(t, db)
	without, err := fill.Run(ctx, conn, fill.New(before, after, fill.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if without.Rows() != 0 {
		t.Fatalf("without users, %d rows went in (%s); the test no longer shows what users change", without.Rows(), without.Summary())
	}
	plan := fill.New(before, after, fill.Options{Users: fill.Users})
	if !plan.NeedsUsers() {
		t.Fatal("the plan does not ask for users")
	}
	admin := scratchtest.ConnectAdmin(t, db)
	if err := fill.AddUsers(ctx, admin, fill.Users); err != nil {
		t.Fatal(err)
	}
	res, err := fill.Run(ctx, conn, plan)
	if err != nil {
		t.Fatal(err)
	}
	var todos, profiles, strangers int
	err = admin.QueryRow(ctx, `SELECT (SELECT count(*) FROM public.todos), (SELECT count(*) FROM public.profiles),
  (SELECT count(*) FROM public.todos WHERE owner NOT IN (SELECT id FROM auth.users))`).Scan(&todos, &profiles, &strangers)
	if err != nil || todos == 0 || profiles == 0 || strangers != 0 {
		t.Errorf("todos %d, profiles %d, todos of no user %d (%v; %s, skipped %v): want rows in both, each a user's", todos, profiles, strangers, err, res.Summary(), res.Skipped)
	}
}
