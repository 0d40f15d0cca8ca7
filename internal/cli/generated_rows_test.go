package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
)

// A sidecar with no fixture (the configuration init writes has none) is rerun over generated
// rows, and check says how many; the same sidecar with a rerun that deletes its link table's
// rows, or one that inserts a review row per thought again on every run, fails the rerun audit
// with the rows it lost or duplicated.
func TestCheckWithoutFixtureGeneratesRows(t *testing.T) {
	repo := initSidecar(t, "topics.sql")
	cfg, err := os.ReadFile(config.DefaultFile)
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`(?m)^fixture:`).Match(cfg) {
		t.Errorf("init wrote a fixture key:\n%s", cfg)
	}
	rerunPhase := func(t *testing.T) (string, int, []string) {
		t.Helper()
		rep := sharedCheck(t)
		for _, ph := range rep.Phases {
			if ph.Name == "rerun artifact" {
				return strings.Join(ph.Notes, "\n"), ph.Counts["generated_rows"], errorRules(rep)
			}
		}
		t.Fatalf("no rerun phase in %+v", rep.Phases)
		return "", 0, nil
	}
	for _, tc := range []struct {
		src, note string
		generated int
		errors    []string
	}{
		{"generated-rows", "ran 2 times over 12 generated rows in 3 tables (seed 1); the catalog and all 11 tables (13 rows) were unchanged", 12, nil},
		{"generated-rows-deleted", "ran 2 times over 12 generated rows in 3 tables (seed 1), but changed the catalog or the data", 12, []string{"destructive-statement", "rerun-rows-lost"}},
		{"generated-rows-duplicated", "ran 2 times over 8 generated rows in 2 tables (seed 1), but changed the catalog or the data", 8, []string{"rerun-rows-duplicated"}},
	} {
		t.Run(tc.src, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(repo, "testdata/rerun", tc.src, "input.sql"))
			if err != nil {
				t.Fatal(err)
			}
			write(t, "topics.sql", string(b))
			note, generated, errs := rerunPhase(t)
			if !strings.Contains(note, tc.note) || generated != tc.generated {
				t.Errorf("rerun notes:\n%s\nwant %q; count generated_rows %d, want %d", note, tc.note, generated, tc.generated)
			}
			if !slices.Equal(errs, tc.errors) {
				t.Errorf("errors %v, want %v", errs, tc.errors)
			}
		})
	}
}
