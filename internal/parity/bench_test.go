package parity_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"ledgercheck/diff"
	"ledgercheck/internal/allowlist"
	"ledgercheck/internal/install"
	"ledgercheck/internal/parity"
	"ledgercheck/internal/pgsql"
	"ledgercheck/internal/scratch/scratchtest"
	"ledgercheck/internal/sqlscript"
	"ledgercheck/introspect"
)

func shippedVariants(t testing.TB) (parity.Variant, parity.Variant, *allowlist.File) {
	left := parity.Variant{Script: parity.Script{Name: "migrations/decision_ledger.sql", Src: []byte(readRepoTB(t, "migrations/decision_ledger.sql"))}, Dim: 1536}
	right := parity.Variant{Script: parity.Script{Name: "migrations/ports/decision_ledger_1024.sql", Src: []byte(readRepoTB(t, "migrations/ports/decision_ledger_1024.sql"))}, Dim: 1024}
	al, err := allowlist.Load("../../allowlist.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return left, right, al
}

// BenchmarkDiffAllowlist measures the comparison of the shipped pair with the footprints taken
// and the sources parsed (parity.Run does both during the installs): diff.Compare and
// allowlist.Apply. Target: under 50 ms. The "parse" sub-benchmark adds parsing both sources.
func BenchmarkDiffAllowlist(b *testing.B) {
	left, right, al := shippedVariants(b)
	ctx := context.Background()
	fps := make([]*introspect.Footprint, 2)
	for i, v := range []parity.Variant{left, right} {
		db := scratchtest.NewDatabase(b, v.Dim)
		f, err := sqlscript.Parse(v.Name, v.Src, v.Dim)
		if err != nil {
			b.Fatal(err)
		}
		fp, _, err := install.Footprint(ctx, db, sqlscript.Script(f), nil, introspect.Options{})
		if err != nil {
			b.Fatal(err)
		}
		fps[i] = fp
	}
	parse := func(v parity.Variant) *pgsql.File {
		f, err := pgsql.Parse(v.Name, v.Src)
		if err != nil {
			b.Fatal(err)
		}
		return f
	}
	compare := func(lsrc, rsrc *pgsql.File) {
		res := diff.Compare(
			diff.Side{Label: "left", File: left.Name, Dim: left.Dim, Footprint: fps[0], Source: parity.DeclaredSource(lsrc)},
			diff.Side{Label: "right", File: right.Name, Dim: right.Dim, Footprint: fps[1], Source: parity.DeclaredSource(rsrc)})
		if o := al.Apply(res.Differences); !o.Passed() {
			b.Fatalf("the shipped pair does not pass: %d unreviewed, %d stale", len(o.Unreviewed), len(o.Stale))
		}
	}
	lsrc, rsrc := parse(left), parse(right)
	b.Run("compare", func(b *testing.B) {
		for b.Loop() {
			compare(lsrc, rsrc)
		}
	})
	b.Run("parse+compare", func(b *testing.B) {
		for b.Loop() {
			compare(parse(left), parse(right))
		}
	})
}

// BenchmarkParity measures the whole parity run of the shipped configuration on a running
// cluster: both installs (database copies, prerequisites from the template, the migrations,
// footprints), the fixture, nine probes per side, the comparison and the allowlist. It reports
// the median per run (target: under 3 s for the command, whose cluster boot comes on top).
func BenchmarkParity(b *testing.B) {
	left, right, al := shippedVariants(b)
	opts, _ := shippedOptions(b)
	opts.Left, opts.Right, opts.Allowlist = left, right, al
	srv := scratchtest.Server(b)
	ctx := context.Background()
	// Build the per-dimension templates outside the measurement, as a warm cluster has them.
	if _, err := parity.Run(ctx, srv, opts); err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		rep, err := parity.Run(ctx, srv, opts)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		if !rep.Passed() {
			b.Fatal("the shipped pair does not pass")
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Milliseconds()), "median-ms")
}
