package parity

import (
	"strings"
	"testing"
)

// The notes of a side read from a database: where from, each side's server version (a warning,
// first, when the major versions differ), and what a side without its file cannot check.
func TestLiveNotes(t *testing.T) {
	art := Installed{Name: "artifact", File: "a.sql", Server: "15.20 (Debian 15.20-0+deb12u1)"}
	port := Installed{Name: "prod", Live: "reader@db:5432/postgres", Server: "17.6"}
	notes, probes, skipped := liveNotes(art, port)
	if len(notes) != 3 || !strings.HasPrefix(notes[0], "WARNING: the two sides ran on different PostgreSQL major versions: the artifact ran on PostgreSQL 15.20") ||
		!strings.Contains(notes[0], "the port prod was read from PostgreSQL 17.6") ||
		!strings.HasPrefix(notes[1], "the port prod was read from the database reader@db:5432/postgres, read-only: what it holds of the objects that installing a.sql created or changed") ||
		!strings.HasPrefix(notes[2], "signature typmods of the port prod could not be verified") {
		t.Errorf("notes = %q", notes)
	}
	if len(probes) != 0 || !strings.HasPrefix(skipped, "not run: the port prod is read from a database without its file") {
		t.Errorf("probes %q, skipped %q", probes, skipped)
	}

	port.Server = "15.21"
	notes, _, _ = liveNotes(art, port)
	if last := notes[len(notes)-1]; last != "the artifact ran on PostgreSQL 15.20 (Debian 15.20-0+deb12u1), the port prod was read from PostgreSQL 15.21" {
		t.Errorf("same major version: last note %q", last)
	}
	if notes, probes, skipped := liveNotes(art, Installed{Name: "port", File: "p.sql"}); notes != nil || probes != nil || skipped != "" {
		t.Errorf("no side read from a database: %q %q %q", notes, probes, skipped)
	}
}
