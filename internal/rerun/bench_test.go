package rerun

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// BenchmarkRerunArtifact is a three-run audit of the shipped artifact with the ledger fixture
// (install, fixture, snapshot and digests, two reruns each followed by a snapshot and digests),
// against the target of 3 s median. It reports the median as median-s/op; the per-dimension
// template is built before the timer starts, as it is once per server.
func BenchmarkRerunArtifact(b *testing.B) {
	opts := loadCase(b, "testdata/rerun/artifact")
	opts.Previous = nil
	srv := scratchtest.Server(b)
	ctx := context.Background()
	if _, err := srv.NewDatabase(ctx, opts.Dim); err != nil { // build the template
		b.Fatal(err)
	}
	var times []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := Audit(ctx, srv, opts)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		if res.Failed() || res.Runs != 3 {
			b.Fatalf("the artifact's audit failed: %v", res.Findings)
		}
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(times[len(times)/2].Seconds(), "median-s/op")
}
