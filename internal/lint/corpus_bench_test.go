package lint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// corpusFiles reads the files `make bench-lint` lints (bench/lint.sh): testdata/corpus/*.sql.
func corpusFiles(b *testing.B) (names []string, srcs [][]byte) {
	b.Helper()
	paths, err := filepath.Glob("../../testdata/corpus/*.sql")
	if err != nil || len(paths) < 40 {
		b.Fatalf("corpus: %d files, %v", len(paths), err)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		names = append(names, filepath.ToSlash(p))
		srcs = append(srcs, src)
	}
	return names, srcs
}

// BenchmarkLintCorpus lints every file of testdata/corpus with the shipped policy, as
// `ledgercheck lint testdata/corpus/*.sql` does in one call, minus process start-up, reading
// and output: the benchmark to profile lint with (-cpuprofile).
func BenchmarkLintCorpus(b *testing.B) {
	names, srcs := corpusFiles(b)
	cfg := shippedConfig(b)
	var size int64
	for _, s := range srcs {
		size += int64(len(s))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for i, src := range srcs {
			Source(names[i], src, cfg, Options{})
		}
	}
}

// BenchmarkParseCorpus is the pgsql.Parse part of BenchmarkLintCorpus: parsing, bodies and
// nested statements included, rules excluded.
func BenchmarkParseCorpus(b *testing.B) {
	names, srcs := corpusFiles(b)
	b.ReportAllocs()
	for b.Loop() {
		for i, src := range srcs {
			pgsql.Parse(names[i], src)
		}
	}
}

// BenchmarkRulesCorpus times each part of Run on the corpus parsed once, as sub-benchmarks: the
// ownership model, every rule's Check (each with a Pass of its own, so the Pass's shared views
// count in every rule that reads them), and the suppressions with the sort.
func BenchmarkRulesCorpus(b *testing.B) {
	names, srcs := corpusFiles(b)
	cfg := shippedConfig(b)
	var files []*pgsql.File
	for i, src := range srcs {
		if f, err := pgsql.Parse(names[i], src); err == nil {
			files = append(files, f)
		}
	}
	if len(files) < 40 {
		b.Fatalf("only %d files parse", len(files))
	}
	owns := make([]*Ownership, len(files))
	for i, f := range files {
		owns[i] = NewOwnership(f, cfg)
	}
	b.Run("ownership", func(b *testing.B) {
		for b.Loop() {
			for _, f := range files {
				NewOwnership(f, cfg)
			}
		}
	})
	all := make([][]finding.Finding, len(files)) // every rule's findings, for the suppressions
	for _, r := range cfg.active() {
		pass := func(i int) []finding.Finding {
			var fs []finding.Finding
			r.Check(&Pass{File: files[i], Config: cfg, Own: owns[i], findings: &fs, rule: r})
			return fs
		}
		for i := range files {
			all[i] = append(all[i], pass(i)...)
		}
		b.Run(r.ID, func(b *testing.B) {
			for b.Loop() {
				for i := range files {
					pass(i)
				}
			}
		})
	}
	b.Run("suppressions+sort", func(b *testing.B) {
		for b.Loop() {
			for i, f := range files {
				fs := applySuppressions(f, cfg, append([]finding.Finding(nil), all[i]...))
				fs = baseSchema(f, owns[i], cfg, fs)
				sortFindings(fs)
			}
		}
	})
}
