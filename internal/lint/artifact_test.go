package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestShippedFiles lints the shipped artifact and its 1024-dim port with the default
// configuration: both must be free of errors. known lists errors a file is expected to keep
// (none today), so that a regression and a fix both show up as a failure.
func TestShippedFiles(t *testing.T) {
	for _, tc := range []struct {
		path  string
		dim   int
		known []string // "rule object"
	}{
		// The artifact keeps the sidecar contract as it is.
		{"../../migrations/decision_ledger.sql", 1536, nil},
		// The port's role model instead of RLS ([D4]) breaks the table rules on purpose; each
		// deviation is a reviewed ledgercheck:ignore with its reason in the file itself.
		{"../../migrations/ports/decision_ledger_1024.sql", 1024, nil},
		// The merged upstream revision drops every overload of match_decision_ledger in a DO
		// block before its plain CREATE FUNCTION (issue 13: it was not-idempotent); it keeps
		// warnings only (unpinned search paths, the dynamic DROP, grants that leave PUBLIC).
		{"../../testdata/upstream/decision_ledger_upstream.sql", 1536, nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			src, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatalf("the shipped file is missing: %v", err)
			}
			fs := Source(tc.path, src, shippedConfig(t), Options{Dim: tc.dim})
			var got []string
			for _, f := range fs {
				if f.Severity == finding.SevError {
					got = append(got, f.Rule+" "+f.Object)
				}
			}
			slices.Sort(got)
			want := slices.Clone(tc.known)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("errors changed.\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
			}
		})
	}
}
