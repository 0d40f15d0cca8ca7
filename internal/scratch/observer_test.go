package scratch_test

import (
	"context"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// The observer logs in as the Data API's login role does: NOINHERIT, a member of anon,
// authenticated and service_role, no privilege of its own, and out of user SQL's reach. A
// request's function that runs RESET ROLE lands on it and reads nothing, calls no definer
// function the API roles cannot call; user SQL cannot alter the role or grant it to itself.
func TestObserverRoleHoldsNothing(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	scratchtest.Exec(t, db, "t.sql", `CREATE TABLE public.secret_notes (id int, body text);
INSERT INTO public.secret_notes VALUES (1, 'only service_role');
REVOKE ALL ON public.secret_notes FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.secret_notes TO service_role;
CREATE FUNCTION public.secret_count() RETURNS bigint LANGUAGE sql SECURITY DEFINER SET search_path = ''
  AS $$ SELECT count(*) FROM public.secret_notes $$;
REVOKE ALL ON FUNCTION public.secret_count() FROM PUBLIC, anon, authenticated;
-- A helper an API role may call that steps out of the request's role.
CREATE FUNCTION public.escape_request() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RESET ROLE;
  RETURN current_user;
END $$;
GRANT EXECUTE ON FUNCTION public.escape_request() TO anon;`)
	conn, err := db.ConnectObserver(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var name string
	var super, bypass, inherit bool
	var anon, authed, service bool
	err = conn.QueryRow(ctx, `SELECT r.rolname, r.rolsuper, r.rolbypassrls, r.rolinherit,
		pg_has_role('anon', 'MEMBER'), pg_has_role('authenticated', 'MEMBER'), pg_has_role('service_role', 'MEMBER')
		FROM pg_roles r WHERE r.rolname = current_user`).Scan(&name, &super, &bypass, &inherit, &anon, &authed, &service)
	if err != nil {
		t.Fatal(err)
	}
	if name != db.ObserverRole() || name == db.InstallRole() || super || bypass || inherit || !anon || !authed || !service {
		t.Errorf("observer %s: superuser %v, bypassrls %v, inherit %v, member of anon %v, authenticated %v, service_role %v", name, super, bypass, inherit, anon, authed, service)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SET LOCAL ROLE anon`); err != nil {
		t.Fatal(err)
	}
	var after string
	if err := tx.QueryRow(ctx, `SELECT public.escape_request()`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != name {
		t.Fatalf("RESET ROLE inside the request landed on %q, want the observer %q", after, name)
	}
	for _, sql := range []string{`SELECT count(*) FROM public.secret_notes`, `SELECT public.secret_count()`} {
		if _, err := tx.Exec(ctx, `SAVEPOINT s`); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, sql); err == nil {
			t.Errorf("after RESET ROLE the observer ran %s", sql)
		}
		if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT s`); err != nil {
			t.Fatal(err)
		}
	}
	for _, sql := range []string{
		`ALTER ROLE "` + name + `" BYPASSRLS`,
		`ALTER ROLE "` + name + `" INHERIT`,
		`ALTER ROLE "` + name + `" PASSWORD 'mine'`,
		`GRANT "` + name + `" TO CURRENT_USER`,
		`GRANT postgres TO "` + name + `"`,
	} {
		if _, err := db.Query(ctx, sql, scratch.QueryOptions{}); err == nil {
			t.Errorf("user SQL ran %s", sql)
		}
	}
}
