package repository

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// sidecars: a needs nothing; b needs a; c needs b (and so a); d needs a and has a prerequisite
// file of its own; e needs nothing.
func sidecars() []Sidecar {
	s := func(name string, needs ...string) Sidecar {
		return Sidecar{Name: name, Needs: needs, Request: gate.Request{Artifact: gate.Variant{Name: "artifact", File: name + ".sql", Src: []byte("-- " + name), Dim: 3},
			Ports: []gate.Port{{Variant: gate.Variant{Name: "small", File: name + "_2.sql", Dim: 2}}}}}
	}
	d := s("d", "a")
	d.Request.Prerequisites = []gate.Script{{Name: "base.sql"}}
	b := s("b", "a")
	b.Request.Prerequisites = []gate.Script{{Name: "base.sql"}}
	return []Sidecar{s("a"), b, s("c", "b"), d, s("e")}
}

// A change concerns the changed sidecars and every sidecar that needs one, directly or not.
func TestAffected(t *testing.T) {
	all := sidecars()
	for _, tc := range []struct{ changed, want string }{
		{"a", "a b c d"}, {"b", "b c"}, {"c", "c"}, {"e", "e"}, {"b e", "b c e"}, {"", ""}, {"nope", ""},
	} {
		got := strings.Join(Affected(all, strings.Fields(tc.changed)), " ")
		if got != tc.want {
			t.Errorf("changed %q: %q, want %q", tc.changed, got, tc.want)
		}
	}
}

// A sidecar's request installs what it needs first, in dependency order, each need after its
// own prerequisite files and each file once, then its own prerequisite files; its variants are
// named after it.
func TestSidecarRequest(t *testing.T) {
	all := sidecars()
	req := Request{Sidecars: all}
	r := req.sidecarRequest(all[2]) // c
	var names []string
	for _, p := range r.Prerequisites {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "a.sql base.sql b.sql" {
		t.Errorf("c's prerequisites %q, want a.sql base.sql b.sql", got)
	}
	if r.Artifact.Name != "c" || r.Ports[0].Name != "c/small" || all[2].Request.Ports[0].Name != "small" {
		t.Errorf("names: artifact %q, port %q (the sidecar's own request keeps %q)", r.Artifact.Name, r.Ports[0].Name, all[2].Request.Ports[0].Name)
	}
	r = req.sidecarRequest(all[3]) // d: its own base.sql after a
	names = names[:0]
	for _, p := range r.Prerequisites {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"a.sql", "base.sql"}) {
		t.Errorf("d's prerequisites %v", names)
	}
	// Sidecars with the same needs and prerequisite files share their template.
	tb, td := gate.Templates(req.sidecarRequest(all[1])), gate.Templates(req.sidecarRequest(all[3]))
	if len(tb) == 0 || !scratch.SameTemplate(tb[0], td[0]) || scratch.SameTemplate(tb[0], gate.Templates(req.sidecarRequest(all[2]))[0]) {
		t.Error("the template key does not follow the prerequisite files")
	}
}
