package repository

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// chainSidecars generates a chain of n sidecars: chain-001 hangs a table off public.thoughts,
// and each one after it needs the one before (a foreign key to its table), so that sidecar k
// is installed over the k-1 before it.
func chainSidecars(b testing.TB, n int) []Sidecar {
	b.Helper()
	dir := b.TempDir()
	out := make([]Sidecar, n)
	for k := range n {
		table := fmt.Sprintf("chain_%03d", k+1)
		ref, need := "thought_id uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,\n", []string(nil)
		if k > 0 {
			prev := fmt.Sprintf("chain_%03d", k)
			ref = fmt.Sprintf("%s_id bigint NOT NULL REFERENCES public.%s (id) ON DELETE CASCADE,\n", prev, prev)
			need = []string{out[k-1].Name}
		}
		file, sql := writeGenerated(b, dir, table, ref)
		out[k] = generatedSidecar(strings.ReplaceAll(table, "_", "-"), need, file, sql)
	}
	return out
}

// benchChains are the chain lengths BenchmarkRepositoryChain measures: 10, 50 and 150, or those
// $LEDGERCHECK_BENCH_CHAINS lists ("10,50").
func benchChains(b *testing.B) []int {
	list := os.Getenv("LEDGERCHECK_BENCH_CHAINS")
	if list == "" {
		return []int{10, 50, 150}
	}
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			b.Fatalf("LEDGERCHECK_BENCH_CHAINS: %q is not a chain length of 2 or more", f)
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkRepositoryChain checks chains of generated sidecars, each needing the one before: the
// first run of a chain of N, which builds its templates (cold-whole-s), then, with the cache
// across runs warm, the whole run of N and what each added sidecar costs, the run of N against
// the run of its first N/2, per sidecar. The cost of an added sidecar must not grow with the chain's length. Wall
// times on the machine as it is.
func BenchmarkRepositoryChain(b *testing.B) {
	scratchtest.NeedPostgres(b)
	b.Setenv(scratch.CacheDirEnv, b.TempDir()) // the benchmark's entries, removed after it
	for _, n := range benchChains(b) {
		b.Run(fmt.Sprintf("chain-%d", n), func(b *testing.B) {
			all := chainSidecars(b, n)
			whole, half := Request{Sidecars: all}, Request{Sidecars: all[:n/2]}
			cold := timedRun(b, whole) // warms the cache: the templates built
			timedRun(b, half)
			var tWhole, tHalf time.Duration
			for b.Loop() {
				tWhole += timedRun(b, whole)
				tHalf += timedRun(b, half)
			}
			runs := float64(b.N)
			b.ReportMetric(cold.Seconds(), "cold-whole-s")
			b.ReportMetric(tWhole.Seconds()/runs, "whole-s")
			b.ReportMetric((tWhole-tHalf).Seconds()/runs/float64(n-n/2), "per-added-sidecar-s")
		})
	}
}
