package scratchtest

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestNoClusterUntilAsked: Main starts no cluster by itself; a package whose tests never call
// Server (or NewDatabase) runs without one.
func TestNoClusterUntilAsked(t *testing.T) {
	if !inMain {
		t.Fatal("Main is not running the tests")
	}
	if srv != nil || startErr != nil {
		t.Fatalf("a cluster was started (or tried: %v) before any test asked for one", startErr)
	}
}
