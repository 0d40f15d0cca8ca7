package rerun

import (
	"os"
	"testing"

	"ledgercheck/internal/scratch/scratchtest"
)

// One scratch cluster for the package's tests.
func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }
