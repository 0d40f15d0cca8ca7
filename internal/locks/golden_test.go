package locks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/golden"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/report/reporttest"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// repo is the repository root, relative to this package's directory.
const repo = "../.."

// caseSpec is testdata/locks/<case>/case.json; every field is optional.
type caseSpec struct {
	// Runs is how many times the file is applied, each traced (default 1: the install; the
	// second is "run 2", as the rerun audit names it).
	Runs int `json:"runs"`
	// Accept are reviewed locks (locks.accept).
	Accept []Acceptance `json:"accept"`
	// Slow is locks.slow_statement (default DefaultSlow): the cases that sleep sleep less.
	Slow string `json:"slow"`
	// Stats are production's table statistics (--table-stats), in its JSON form.
	Stats json.RawMessage `json:"stats"`
}

func loadSpec(t *testing.T, dir string) caseSpec {
	t.Helper()
	var spec caseSpec
	b, err := os.ReadFile(filepath.Join(dir, "case.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		t.Fatal(err)
	default:
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&spec); err != nil {
			t.Fatalf("%s/case.json: %v", dir, err)
		}
	}
	for i := range spec.Accept {
		spec.Accept[i].Where = fmt.Sprintf("case.json:accept[%d]", i)
	}
	return spec
}

// traced installs the file of a case directory in db, as many times as its spec says, each run
// traced on conn (a superuser session of db), and returns its locks phase. Every case of a
// server runs in one database, one after the other: what a case creates has a larger oid than the
// database, so no case's objects are finding material for the next.
func traced(t *testing.T, db *scratch.Database, dir string, opts func(*Input)) report.PhaseResult {
	t.Helper()
	ctx := context.Background()
	spec := loadSpec(t, dir)
	name := filepath.ToSlash(filepath.Join("testdata", "locks", filepath.Base(dir), "input.sql"))
	src, err := os.ReadFile(filepath.Join(dir, "input.sql"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := sqlscript.Parse(name, src, db.Dim)
	if err != nil {
		t.Fatal(err)
	}
	conn := scratchtest.ConnectAdmin(t, db)
	in := Input{Name: "case", File: name, Parsed: f, Script: sqlscript.Script(f), Accept: spec.Accept}
	if spec.Stats != nil {
		if in.Stats, err = ParseStats("case.json", spec.Stats); err != nil {
			t.Fatalf("%s/case.json: stats: %v", dir, err)
		}
	}
	if spec.Slow != "" {
		if in.Slow, err = time.ParseDuration(spec.Slow); err != nil {
			t.Fatalf("%s/case.json: slow: %v", dir, err)
		}
	}
	for run := 1; run <= max(spec.Runs, 1); run++ {
		rn := "install"
		if run > 1 {
			rn = fmt.Sprintf("run %d", run)
		}
		tr := NewTrace(rn, conn)
		sc := *in.Script
		sc.Observer = tr
		if err := db.Exec(ctx, &sc); err != nil {
			t.Fatalf("%s (%s): %v", name, rn, err)
		}
		in.Runs = append(in.Runs, Run{Name: rn, Trace: tr})
	}
	reader, err := db.ConnectReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close(ctx)
	if in.Sizes, err = Measure(ctx, reader, Locked(in.Runs)); err != nil {
		t.Fatal(err)
	}
	if opts != nil {
		opts(&in)
	}
	return Phase(in)
}

// text is ph in a report of its own, as the text format writes it, durations and scratch sizes
// zeroed.
func text(t *testing.T, ph report.PhaseResult) []byte {
	t.Helper()
	rep := &report.Report{Tool: "ledgercheck", Version: "test", Phases: []report.PhaseResult{ph}}
	rep.Finish()
	var b bytes.Buffer
	if err := report.WriteReportText(&b, reporttest.Stable(rep), false); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// servers are the servers the golden cases run on: the embedded cluster and a --dsn server,
// each with the PostgreSQL version the run asks for (LEDGERCHECK_PG).
var servers = []struct {
	name  string
	start func(t *testing.T) *scratch.Server
}{
	{"embedded", func(t *testing.T) *scratch.Server { return scratchtest.Server(t) }},
	{"dsn", func(t *testing.T) *scratch.Server {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		s, err := scratch.Start(ctx, scratch.Options{DSN: scratchtest.SharedDSNServer(t).DSN})
		if err != nil {
			scratchtest.Unavailable(t, err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
}

// TestGolden traces every case under testdata/locks, on the embedded cluster and on a --dsn
// server, and compares the locks phase, as the text format writes it, with the case's want.txt
// (the same file for both: the trace reads the same locks there). go test ./internal/locks
// -update rewrites them; review the diff.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(repo, "testdata", "locks", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases under testdata/locks (%v)", err)
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			s := srv.start(t)
			db, err := s.NewDatabase(context.Background(), 1536)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Drop(context.Background()) }) //nolint:errcheck // the server drops it on Close
			for _, dir := range dirs {
				t.Run(filepath.Base(dir), func(t *testing.T) {
					got := text(t, traced(t, db, dir, nil))
					if srv.name == "embedded" || !*golden.Update {
						golden.Check(t, filepath.Join(dir, "want.txt"), got)
					}
				})
			}
		})
	}
}

// A trace whose privileged session is gone reads nothing, and says so: the install still runs to
// its end as it would untraced, and the phase is skipped with a note, not passed.
func TestTraceThatCannotReadLeavesTheInstallAlone(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	name := "testdata/locks/lock-without-timeout/input.sql"
	src, err := os.ReadFile(filepath.Join(repo, name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := sqlscript.Parse(name, src, db.Dim)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTrace("install", conn)
	sc := sqlscript.Script(f)
	sc.Observer = tr
	if err := db.Exec(ctx, sc); err != nil {
		t.Fatalf("the install failed with its trace unable to read: %v", err)
	}
	ph := Phase(Input{Name: "case", File: name, Parsed: f, Script: sqlscript.Script(f), Runs: []Run{{Name: "install", Trace: tr}}})
	if ph.Status != report.StatusSkip || len(ph.Findings) != 0 || len(ph.Notes) < 2 || !strings.Contains(ph.Notes[1], "the trace (install) is incomplete: reading the tables before the file") {
		t.Errorf("status %q, findings %v, notes %q", ph.Status, ph.Findings, ph.Notes)
	}
}
