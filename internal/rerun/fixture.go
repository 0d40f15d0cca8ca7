package rerun

import (
	"fmt"
	"os"
	"path/filepath"
)

// DefaultFixture is the project's ledger fixture, relative to the repository root: decisions
// enrolled through agent_memories inserts, edges, pins, counters and recall traces, re-runnable,
// written for any install of the ledger at any dimension.
const DefaultFixture = "testdata/fixtures/ledger_fixture.sql"

// FindDefaultFixture looks for [DefaultFixture] in dir and then in each parent of dir, so that
// `ledgercheck rerun` finds it from the repository root or any directory below it. It returns the
// path relative to dir when it can (positions in the report use it), else absolute.
func FindDefaultFixture(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("finding the default fixture: %w", err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		p := filepath.Join(d, filepath.FromSlash(DefaultFixture))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			if rel, err := filepath.Rel(abs, p); err == nil {
				return rel, nil
			}
			return p, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", fmt.Errorf("no default fixture: %s is not in %s or any parent directory; pass --fixture FILE, or --no-fixture", DefaultFixture, abs)
}
