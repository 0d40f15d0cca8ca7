package observe_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/observe"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// BenchmarkObserveShipped measures what the observation adds to one install of each shipped
// variant under each privilege model, over the fixture: its catalog read and whatever requests
// it makes (the install itself is not timed). On the shipped files no persona has a request to
// make, so it is the surface's catalog read on the superuser's session the pipeline holds.
func BenchmarkObserveShipped(b *testing.B) {
	ctx := context.Background()
	srv := scratchtest.Server(b)
	for _, v := range []struct {
		file string
		dim  int
	}{{"../../migrations/decision_ledger.sql", 1536}, {"../../migrations/ports/decision_ledger_1024.sql", 1024}} {
		for _, m := range models {
			b.Run(v.file[strings.LastIndex(v.file, "/")+1:]+"/"+m.name, func(b *testing.B) {
				src, err := os.ReadFile(v.file)
				if err != nil {
					b.Fatal(err)
				}
				db, err := srv.NewDatabaseFrom(ctx, v.dim, scratch.Base{Privileges: m.priv})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = db.Drop(context.Background()) })
				f, err := sqlscript.Parse(v.file, src, v.dim)
				if err != nil {
					b.Fatal(err)
				}
				fp, after, err := install.Footprint(ctx, db, sqlscript.Script(f), nil, introspect.Options{})
				if err != nil {
					b.Fatal(err)
				}
				fx, err := os.ReadFile("../../testdata/fixtures/ledger_fixture.sql")
				if err != nil {
					b.Fatal(err)
				}
				if err := sqlscript.ExecFile(ctx, db, "ledger_fixture.sql", fx); err != nil {
					b.Fatal(err)
				}
				admin, err := db.ConnectAdmin(ctx)
				if err != nil {
					b.Fatal(err)
				}
				defer admin.Close(ctx)
				in := observe.Input{Model: m.name, Scope: observe.ScopeOf(fp, []string{"public", "graphql_public"}), Snapshot: after, Dim: v.dim, Admin: admin}
				b.ResetTimer()
				for b.Loop() {
					if _, err := observe.Run(ctx, db, in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
