package introspect

import (
	"os"
	"testing"

	"ledgercheck/scratch/scratchtest"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }
