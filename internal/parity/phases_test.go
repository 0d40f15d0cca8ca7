package parity_test

import (
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/parity"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// TestVersionNote: the parity phase says when the two variants ran on different major versions,
// and only then.
func TestVersionNote(t *testing.T) {
	for _, tc := range []struct {
		artifact, port string
		want           string // in a note; "" for none about versions
	}{
		{"15.20", "17.10", "WARNING: the two variants ran on different PostgreSQL major versions: the artifact ran on PostgreSQL 15.20, the port ran on PostgreSQL 17.10"},
		{"17.10", "17.4", ""},
		{"15.20", "15.20", ""},
		{"", "17.10", ""},
	} {
		empty := &introspect.Footprint{}
		rep, err := parity.Compare(
			parity.Installed{Name: "artifact", File: "a.sql", Dim: 3, Server: tc.artifact, Footprint: empty},
			parity.Installed{Name: "port", File: "p.sql", Dim: 3, Server: tc.port, Footprint: empty}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(rep.Phases("artifact", "port")[0].Notes, "\n")
		if got := strings.Contains(notes, "ran on PostgreSQL"); got != (tc.want != "") || !strings.Contains(notes, tc.want) {
			t.Errorf("%s and %s: notes %q, want one saying %q", tc.artifact, tc.port, notes, tc.want)
		}
	}
}
