package scratch_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// chainBases are n Bases, each one layer longer than the one before: layer i creates
// public.<prefix>_i. runs counts how many times each layer ran. setting, when not empty, is SQL
// the first layer runs as well.
func chainBases(t *testing.T, prefix string, n int, setting string) ([]scratch.Base, map[int]int, *sync.Mutex) {
	t.Helper()
	var mu sync.Mutex
	runs := map[int]int{}
	layers := make([]scratch.Layer, n)
	for i := range layers {
		sql := fmt.Sprintf("CREATE TABLE public.%s_%d (id int);\n", prefix, i+1)
		if i == 0 {
			sql += setting
		}
		layers[i] = scratch.Layer{Key: fmt.Sprintf("%s/%d", prefix, i+1), Run: func(ctx context.Context, db *scratch.Database) error {
			mu.Lock()
			runs[i+1]++
			mu.Unlock()
			return sqlscript.ExecFile(ctx, db, fmt.Sprintf("layer%d.sql", i+1), []byte(sql))
		}}
	}
	bases := make([]scratch.Base, n)
	for k := range bases {
		bases[k] = scratch.Base{NoOpenBrain: true, Layers: layers[:k+1]}
	}
	return bases, runs, &mu
}

// databases counts the databases of the server, seen from db.
func databases(t *testing.T, db *scratch.Database) int {
	t.Helper()
	var n int
	if err := scratchtest.Connect(t, db).QueryRow(context.Background(), "SELECT count(*) FROM pg_database").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A chain of templates, each one layer longer than the one before, is built one layer per
// template (each a copy of the one before it), not from template0 each time; every database
// copied from one holds all of its layers; and once the run gives back the uses it declared,
// no template of the chain is left. A layer that gives its database settings of its own (which
// a copy would lose) is stopped by the warden, and the template is not built.
func TestLayeredTemplatesChain(t *testing.T) {
	srv := scratchtest.Server(t)
	ctx := context.Background()
	probe := scratchtest.NewDatabase(t, 1536)
	for _, tc := range []struct {
		name, setting string
		layers        int
	}{
		{"copies", "", 6},
		{"settings", "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET work_mem = ''8MB''', current_database()); END $$;\n", 3},
	} {
		if tc.setting != "" {
			t.Run(tc.name, func(t *testing.T) {
				bases, _, _ := chainBases(t, "layered_"+tc.name, tc.layers, tc.setting)
				sp := scratch.TemplateSpec{Dim: 768, Base: bases[0]}
				srv.Expect([]scratch.TemplateSpec{sp})
				defer srv.Release(ctx, sp) //nolint:errcheck // the template was not built
				_, err := srv.NewDatabaseFrom(ctx, sp.Dim, sp.Base)
				if err == nil || !strings.Contains(err.Error(), "which every later session would apply") {
					t.Fatalf("a layer that sets its database's work_mem: %v; want the warden to stop it", err)
				}
			})
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			prefix := "layered_" + tc.name
			bases, runs, mu := chainBases(t, prefix, tc.layers, tc.setting)
			specs := make([]scratch.TemplateSpec, len(bases))
			for i, b := range bases {
				specs[i] = scratch.TemplateSpec{Dim: 768, Base: b}
			}
			before, dbs := srv.LayersRun(), databases(t, probe)
			srv.Expect(specs)
			for k, sp := range specs {
				db, err := srv.NewDatabaseFrom(ctx, sp.Dim, sp.Base)
				if err != nil {
					t.Fatal(err)
				}
				var n int
				if err := scratchtest.Connect(t, db).QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relname LIKE $1", prefix+"%").Scan(&n); err != nil {
					t.Fatal(err)
				}
				if err := db.Drop(ctx); err != nil {
					t.Fatal(err)
				}
				if err := srv.Release(ctx, sp); err != nil {
					t.Fatal(err)
				}
				if n != k+1 {
					t.Errorf("a copy of template %d holds %d of its layers' tables, want %d", k+1, n, k+1)
				}
			}
			want := tc.layers // one per template
			if got := srv.LayersRun() - before; got != want {
				mu.Lock()
				t.Errorf("the chain of %d templates ran %d layers (%v), want %d", tc.layers, got, runs, want)
				mu.Unlock()
			}
			if got := databases(t, probe); got != dbs {
				t.Errorf("%d databases after every use was given back, %d before: the chain's templates are left", got, dbs)
			}
		})
	}
}
