package parity

import (
	"strings"
	"testing"
)

// The notes of a variant read from a database: where from, what a variant without its file cannot
// check, and each variant's server version; when the major versions differ, versionNote's warning
// (which Compare puts first) instead.
func TestLiveNotes(t *testing.T) {
	art := Installed{Name: "artifact", File: "a.sql", Server: "15.20"}
	port := Installed{Name: "prod", Live: "reader@db:5432/postgres", Server: "15.21"}
	notes, probes, skipped := liveNotes(art, port)
	if len(notes) != 3 ||
		!strings.HasPrefix(notes[0], "the port prod was read from the database reader@db:5432/postgres, read-only: what it holds of the objects that installing a.sql created or changed") ||
		!strings.HasPrefix(notes[1], "signature typmods of the port prod could not be verified") ||
		notes[2] != "the artifact ran on PostgreSQL 15.20, the prod ran on PostgreSQL 15.21" {
		t.Errorf("notes = %q", notes)
	}
	if len(probes) != 0 || !strings.HasPrefix(skipped, "not run: the port prod is read from a database without its file") {
		t.Errorf("probes %q, skipped %q", probes, skipped)
	}
	port.Server = "17.6"
	if note, differ := versionNote(art, port); !differ || !strings.HasPrefix(note, "WARNING: the two variants ran on different PostgreSQL major versions: the artifact ran on PostgreSQL 15.20, the prod ran on PostgreSQL 17.6") {
		t.Errorf("different major versions: %q, %v", note, differ)
	}
	if notes, _, _ := liveNotes(art, port); len(notes) != 2 {
		t.Errorf("with the warning, liveNotes leaves the versions to it: %q", notes)
	}
	if notes, probes, skipped := liveNotes(art, Installed{Name: "port", File: "p.sql"}); notes != nil || probes != nil || skipped != "" {
		t.Errorf("no variant read from a database: %q %q %q", notes, probes, skipped)
	}
}
