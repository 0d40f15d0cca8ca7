package scratch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

func TestQueryTextNullAndRollback(t *testing.T) {
	db := scratchtest.NewDatabase(t, 3)
	ctx := context.Background()
	if err := sqlscript.ExecFile(ctx, db, "t.sql", []byte(`CREATE TABLE public.q (id int, v text); INSERT INTO public.q VALUES (1, 'NULL'), (2, NULL);`)); err != nil {
		t.Fatal(err)
	}
	r, err := db.Query(ctx, `SELECT id, v, 0.1::float8 + 0.2 AS f, '[1,2,3]'::extensions.vector AS e FROM public.q ORDER BY id`, scratch.QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Columns, ","); got != "id,v,f,e" {
		t.Errorf("columns = %s", got)
	}
	want := [][]string{{"1", "NULL", "0.30000000000000004", "[1,2,3]"}, {"2", scratch.Null, "0.30000000000000004", "[1,2,3]"}}
	if len(r.Rows) != 2 || strings.Join(r.Rows[0], "|") != strings.Join(want[0], "|") || strings.Join(r.Rows[1], "|") != strings.Join(want[1], "|") {
		t.Errorf("rows = %q, want %q", r.Rows, want)
	}

	// A data-changing query is rolled back.
	if _, err := db.Query(ctx, `DELETE FROM public.q RETURNING id`, scratch.QueryOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err = db.Query(ctx, `SELECT count(*) FROM public.q`, scratch.QueryOptions{})
	if err != nil || r.Rows[0][0] != "2" {
		t.Errorf("after a rolled-back DELETE: %v %v, want 2 rows left", r, err)
	}

	// Role and errors.
	r, err = db.Query(ctx, `SELECT current_user`, scratch.QueryOptions{Role: "service_role"})
	if err != nil || r.Rows[0][0] != "service_role" {
		t.Errorf("role: %v %v", r, err)
	}
	if _, err := db.Query(ctx, `SELECT * FROM public.missing`, scratch.QueryOptions{}); err == nil || !strings.Contains(err.Error(), "42P01") {
		t.Errorf("missing table: err = %v, want SQLSTATE 42P01", err)
	}
}
