package locks

import (
	"os"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// One scratch cluster for the package's tests (and the shared --dsn stand-in, when a test asks).
func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }
