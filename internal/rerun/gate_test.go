package rerun_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/golden"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/report/reporttest"
	"github.com/ledgercheck/ledgercheck/internal/rerun"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// TestGoldenThroughTheGate runs every case under testdata/rerun as the rerun command does, through
// the gate (one database prepared by the gate's install step, then the audit continues on it),
// and compares the text report with the case's want.txt. go test ./internal/rerun -run
// '^TestGoldenThroughTheGate$' -update rewrites them; review the diff.
func TestGoldenThroughTheGate(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/rerun/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, d := range dirs {
		dir := "testdata/rerun/" + filepath.Base(d)
		t.Run(filepath.Base(d), func(t *testing.T) {
			t.Parallel()
			opts := rerun.LoadCase(t, dir)
			req := gate.Request{
				Artifact: gate.Variant{Name: "migration", File: opts.File.Name, Src: opts.File.Src, Dim: opts.Dim},
				Times:    opts.Times, Server: scratchtest.Server(t), Tool: "ledgercheck", Version: "test",
			}
			if opts.Previous != nil {
				req.Artifact.Previous = &gate.SQLFile{Name: opts.Previous.Name, Src: opts.Previous.Src}
			}
			if opts.Fixture != nil {
				req.Fixture = &gate.SQLFile{Name: opts.Fixture.Name, Src: opts.Fixture.Src}
			}
			res, err := gate.Rerun(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			rep := reporttest.Stable(res.Report)
			var got bytes.Buffer
			if err := report.WriteReportText(&got, rep, false); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("../..", dir, "want.txt"), got.Bytes())
			// The verdict agrees with the findings: the report fails exactly when one is an error.
			errs, _, _ := rep.Totals()
			if rep.Failed() != (errs > 0) {
				t.Errorf("Failed() = %v with %d errors", rep.Failed(), errs)
			}
		})
	}
}
