package repository

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// Sidecars that do not need each other run side by side on one server (two at a time), each over
// the sidecars it needs, and the report holds every sidecar's phases under its name, in
// dependency order, with one verdict. It runs under the race detector (make race).
func TestRunChecksEverySidecarSideBySide(t *testing.T) {
	all := benchSidecars(t, 6) // gen-00..04 need none; gen-05 needs gen-00
	rep, err := Run(context.Background(), Request{Sidecars: all, Server: scratchtest.Server(t), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status() != report.StatusPass {
		t.Errorf("status %s, want pass", rep.Status())
	}
	var order []string // each sidecar's phases together: one name per run of phases
	for _, ph := range rep.Phases {
		for _, s := range all {
			if strings.HasSuffix(ph.Name, " "+s.Name) && (len(order) == 0 || order[len(order)-1] != s.Name) {
				order = append(order, s.Name)
			}
		}
	}
	if got := strings.Join(order, " "); got != "gen-00 gen-01 gen-02 gen-03 gen-04 gen-05" {
		t.Errorf("sidecars in the report: %q, want each of the six once, in order", got)
	}
}
