package corpus

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ledgercheck/ledgercheck/internal/golden"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
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
// each file's report and the table as goldens, and fails on a label missed, a trap hit, an
// unlabelled finding, or a message clipped or over report.MaxMessage characters.
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
		for _, l := range r.Missed {
			t.Errorf("%s:%d: %s not reported (%s)", r.Name, l.Line, l.Rule, l.Note)
		}
		for _, tr := range r.Traps {
			t.Errorf("%s:%d: %s reported, a false positive (%s): %s", r.Name, tr.Label.Line, tr.Label.Rule, tr.Label.Note, tr.Finding.Message)
		}
		for _, f := range r.Extra {
			t.Errorf("%s:%d: unlabelled %s: %s", r.Name, f.Pos.Line, f.Rule, f.Message)
		}
		for _, f := range r.Reported {
			if n := utf8.RuneCountInString(f.Message); strings.HasSuffix(f.Message, " more bytes)") || n > report.MaxMessage {
				t.Errorf("%s: a message of %d characters, clipped or over %d: %s", r.Name, n, report.MaxMessage, f.Message)
			}
		}
	}
	var b bytes.Buffer
	if err := WriteTable(&b, results); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/table.txt", b.Bytes())
	// Per kind of project: every label that holds there is found, nothing else.
	b.Reset()
	if err := WriteModelTables(&b, results); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/table-models.txt", b.Bytes())
	for _, m := range models {
		for _, r := range ForModel(results, m.name) {
			for _, l := range r.Missed {
				t.Errorf("%s: %s:%d: %s not reported (%s)", m.name, r.Name, l.Line, l.Rule, l.Note)
			}
			for _, f := range r.Extra {
				t.Errorf("%s: %s:%d: unlabelled %s: %s", m.name, r.Name, f.Pos.Line, f.Rule, f.Message)
			}
		}
	}
}
