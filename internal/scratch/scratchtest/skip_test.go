package scratchtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// outcome records what a helper did to a test instead of doing it: a skip or a failure, each
// with its message; either ends the helper, as it would end the test (see run).
type outcome struct {
	testing.TB
	skipped, failed []string
}

// stopped is what ends a helper at its skip or failure.
type stopped struct{}

func (o *outcome) Helper() {}

func (o *outcome) Skipf(format string, a ...any) {
	o.skipped = append(o.skipped, fmt.Sprintf(format, a...))
	panic(stopped{})
}

func (o *outcome) Fatalf(format string, a ...any) {
	o.failed = append(o.failed, fmt.Sprintf(format, a...))
	panic(stopped{})
}

// run calls helper with o, up to its skip or failure.
func (o *outcome) run(helper func(testing.TB)) {
	defer func() {
		if r := recover(); r != nil && r != (stopped{}) {
			panic(r)
		}
	}()
	helper(o)
}

// TestNeedPostgresWithoutBubblewrap: where the server binaries are installed and bubblewrap is
// not (PATH holds no bwrap), a test that needs an embedded cluster skips with one line saying
// bwrap is not installed and how to get it, and under CI=true fails with it instead: the one
// place every such test of the tree goes through (the ledgercheck binary's tests and those that
// start clusters of their own).
func TestNeedPostgresWithoutBubblewrap(t *testing.T) {
	bin, err := scratch.FindBinDir("", 0)
	if err != nil {
		t.Skipf("no PostgreSQL server binaries, which the case needs: %v", err)
	}
	t.Setenv(scratch.BinDirEnv, bin) // found without pg_config on PATH
	t.Setenv("PATH", t.TempDir())
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		o := &outcome{TB: t}
		o.run(NeedPostgres)
		got, other := o.skipped, o.failed
		if ci == "true" {
			got, other = o.failed, o.skipped
		}
		if len(got) != 1 || len(other) != 0 || !strings.Contains(got[0], "bwrap is not installed: run `ledgercheck setup` as root") || strings.Contains(got[0], "\n") {
			t.Errorf("CI=%q: skipped %q, failed %q; want one line saying bwrap is missing (%s)", ci, o.skipped, o.failed, map[string]string{"": "a skip", "true": "a failure"}[ci])
		}
	}
}
