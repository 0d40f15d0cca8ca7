package locks

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// BenchmarkTraceCost measures what the lock trace adds to one install of the shipped artifact,
// the two ways it could run (docs/architecture.md, "The lock trace"). untraced is the install as
// check ran it before the trace, in-place the same install traced, as check traces it (the
// difference is the trace's cost on each run of the file: install, reruns, upgrade), and
// own-database a traced install in a database of its own, what a trace beside the variant's own
// install would add per variant, plus the database's creation (create-ms/op: copying the
// template, and the connection). Run it with
//
//	go test ./internal/locks -run '^$' -bench TraceCost -benchtime 20x
func BenchmarkTraceCost(b *testing.B) {
	ctx := context.Background()
	name := "migrations/decision_ledger.sql"
	src, err := os.ReadFile(filepath.Join(repo, name))
	if err != nil {
		b.Fatal(err)
	}
	f, err := sqlscript.Parse(name, src, 1536)
	if err != nil {
		b.Fatal(err)
	}
	srv := scratchtest.Server(b)
	for _, c := range []struct {
		name           string
		traced, timeDB bool
	}{{"untraced", false, false}, {"in-place", true, false}, {"own-database", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				t0 := time.Now()
				db, err := srv.NewDatabase(ctx, 1536)
				if err != nil {
					b.Fatal(err)
				}
				sc := sqlscript.Script(f)
				var conn *pgx.Conn
				if c.traced { // the variant's superuser session, open anyway
					if conn, err = db.ConnectAdmin(ctx); err != nil {
						b.Fatal(err)
					}
					sc.Observer = NewTrace("install", conn)
				}
				created := time.Since(t0)
				b.StartTimer()
				if err := db.Exec(ctx, sc); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if c.timeDB {
					b.ReportMetric(float64(created.Microseconds())/1000, "create-ms/op")
				}
				if conn != nil {
					conn.Close(ctx)
				}
				db.Drop(ctx) //nolint:errcheck // the server drops it on Close
				b.StartTimer()
			}
		})
	}
}
