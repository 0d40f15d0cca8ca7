// Command corpus scores ledgercheck on the labelled migrations of testdata/corpus and prints,
// per rule, true and false positives, false negatives, traps hit, precision and recall, then
// every missed label, trap hit and unlabelled finding (make corpus); with -install, the same table
// for each kind of project the installed audit answers for (hosted, self-hosted).
//
//	go run ./internal/cmd/corpus [-install] [FILE...]
//
// Without -install only lint runs; with it every file is also installed (its needs first) into
// an embedded scratch cluster, cross-checked and audited, as `ledgercheck lint --install` does.
// Run it from the repository root.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ledgercheck/ledgercheck/internal/corpus"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
}

func run() error {
	installFlag := flag.Bool("install", false, "also install every file into a scratch database (lint --install)")
	dir := flag.String("dir", "testdata/corpus", "the corpus directory")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := corpus.Load(*dir)
	if err != nil {
		return err
	}
	opts := corpus.Options{Dir: *dir, Root: ".", Only: flag.Args()}
	if *installFlag {
		srv, err := scratch.Start(ctx, scratch.Options{})
		if err != nil {
			return err
		}
		defer srv.Close()
		opts.Server = srv
	}
	results, err := corpus.Run(ctx, e, opts)
	if err != nil {
		return err
	}
	if err := corpus.WriteTable(os.Stdout, results); err != nil {
		return err
	}
	if *installFlag {
		return corpus.WriteModelTables(os.Stdout, results)
	}
	return nil
}
