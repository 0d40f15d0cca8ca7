package gate

import (
	"context"
	"encoding/json"
	"testing"

	"ledgercheck/internal/install"
	"ledgercheck/internal/scratch/scratchtest"
	"ledgercheck/introspect"
)

// A template's description (its snapshot, taken on the session that built it and kept in the
// cache entry) is what a fresh copy of the template snapshots to: the footprint of every install
// starts from it instead of a snapshot of each new database.
func TestTemplateDescriptionIsTheSnapshotOfAFreshCopy(t *testing.T) {
	ctx := context.Background()
	srv := scratchtest.Server(t)
	// Prerequisite files give the template a key of its own, so this test builds it (the
	// package's server may hold the plain templates already, built without a description).
	base := baseFor(false, []Script{{Name: "deps/tags.sql", Src: []byte(sidecar(t, "deps/tags.sql"))}})
	db, err := srv.NewDatabaseFrom(ctx, 1024, base)
	if err != nil {
		t.Fatal(err)
	}
	desc := srv.TemplateDescription(1024, base)
	if desc == nil {
		t.Fatal("the template built with a Describe has no description")
	}
	var described introspect.Snapshot
	if err := json.Unmarshal(desc, &described); err != nil {
		t.Fatal(err)
	}
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	taken, err := install.SnapshotOn(ctx, db, conn, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(taken.Tables) == 0 || len(taken.Functions) == 0 {
		t.Fatalf("the copy's snapshot holds %d tables and %d functions: nothing to compare", len(taken.Tables), len(taken.Functions))
	}
	if d := introspect.Diff(&described, taken); !d.Empty() {
		t.Errorf("the description differs from a fresh copy's snapshot:\n%v", d)
	}
}
