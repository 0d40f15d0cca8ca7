package parity_test

import (
	"context"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/parity"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// BenchmarkCompare measures the comparison of the shipped pair with the footprints taken (the
// gate's install step): diff.Compare and allowlist.Apply. Target: under 50 ms. The "parse"
// sub-benchmark adds parsing both sources. The whole gate, installs included, is measured by
// `make bench`.
func BenchmarkCompare(b *testing.B) {
	al, err := allowlist.Load("../../allowlist.yaml")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var installed [2]parity.Installed
	srcs := [2][]byte{}
	for i, v := range []struct {
		name, file string
		dim        int
	}{{"artifact", "migrations/decision_ledger.sql", 1536}, {"port", "migrations/ports/decision_ledger_1024.sql", 1024}} {
		srcs[i] = []byte(readRepoTB(b, v.file))
		f, err := sqlscript.Parse(v.file, srcs[i], v.dim)
		if err != nil {
			b.Fatal(err)
		}
		db := scratchtest.NewDatabase(b, v.dim)
		fp, _, err := install.Footprint(ctx, db, sqlscript.Script(f), nil, introspect.Options{})
		if err != nil {
			b.Fatal(err)
		}
		installed[i] = parity.Installed{Name: v.name, File: v.file, Dim: v.dim, Source: f, Footprint: fp}
	}
	compare := func() {
		rep, err := parity.Compare(installed[0], installed[1], nil, al)
		if err != nil || !rep.Passed() {
			b.Fatalf("the shipped pair does not pass: %v", err)
		}
	}
	b.Run("compare", func(b *testing.B) {
		for b.Loop() {
			compare()
		}
	})
	b.Run("parse+compare", func(b *testing.B) {
		for b.Loop() {
			for i := range installed {
				f, err := pgsql.Parse(installed[i].File, srcs[i])
				if err != nil {
					b.Fatal(err)
				}
				installed[i].Source = f
			}
			compare()
		}
	})
}
