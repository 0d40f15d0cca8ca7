package corpus

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ledgercheck/internal/golden"
	"ledgercheck/internal/scratch/scratchtest"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

const corpusDir = "../../testdata/corpus"

func load(t *testing.T) *Expect {
	t.Helper()
	e, err := Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCorpusLint scores lint alone (no database) and keeps the table as a golden.
func TestCorpusLint(t *testing.T) {
	e := load(t)
	results, err := Run(context.Background(), e, Options{Dir: corpusDir, Root: "../.."})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, results); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/lint-table.txt", b.Bytes())
}

// TestCorpus installs every file (lint --install: needs, install, cross-check, audit), keeps
// each file's report and the table as goldens.
func TestCorpus(t *testing.T) {
	srv := scratchtest.Server(t)
	e := load(t)
	results, err := Run(context.Background(), e, Options{Dir: corpusDir, Root: "../..", Server: srv})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(e.Files) {
		t.Fatalf("%d results for %d files", len(results), len(e.Files))
	}
	for _, r := range results {
		golden.Check(t, filepath.Join("testdata", "golden", strings.TrimSuffix(r.Name, ".sql")+".txt"), []byte(r.Report()))
	}
	var b bytes.Buffer
	if err := WriteTable(&b, results); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/table.txt", b.Bytes())
}
