package scratch_test

import (
	"context"
	"sync"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// BenchmarkBootBothDims measures what every gate run pays first: an embedded cluster booted
// and one scratch database ready at each dimension (environment and prerequisites installed),
// then everything removed.
func BenchmarkBootBothDims(b *testing.B) {
	scratchtest.Server(b)
	ctx := context.Background()
	for b.Loop() {
		s, err := scratch.Start(ctx, scratch.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, dim := range []int{1536, 1024} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.NewDatabase(ctx, dim)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewDatabase measures one more database copied from an existing template.
func BenchmarkNewDatabase(b *testing.B) {
	s := scratchtest.Server(b)
	ctx := context.Background()
	if _, err := s.NewDatabase(ctx, 1536); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		db, err := s.NewDatabase(ctx, 1536)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Drop(ctx)
		b.StartTimer()
	}
}

// BenchmarkStartCached measures a warm run's boot and end: the cluster and its template copied
// from a warm cache entry, started, then stopped and removed.
func BenchmarkStartCached(b *testing.B) {
	scratchtest.Server(b)
	b.Setenv(scratch.CacheDirEnv, b.TempDir())
	ctx := context.Background()
	opts := scratch.Options{Cache: true, Templates: []scratch.TemplateSpec{{Dim: 1536}}}
	warm, err := scratch.Start(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := warm.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := scratch.Start(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
