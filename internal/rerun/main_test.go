package rerun

import (
	"os"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// One scratch cluster for the package's tests.
func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }
