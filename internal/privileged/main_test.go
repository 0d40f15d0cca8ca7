package privileged_test

import (
	"os"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// TestMain runs the tests with scratchtest's setup and teardown: an isolated cache, and the
// initdb copies of the stand-in servers the tests start removed at the end.
func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }
