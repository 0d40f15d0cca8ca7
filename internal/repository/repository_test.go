package repository

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/fault"
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
	d.Request.Prerequisites = []gate.SQLFile{{Name: "base.sql"}}
	b := s("b", "a")
	b.Request.Prerequisites = []gate.SQLFile{{Name: "base.sql"}}
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

// A run past its bounds stops before it starts, with an input error that says which bound and
// what to do: too many sidecars to check, or a chain of needs too deep (named).
func TestBounds(t *testing.T) {
	all := sidecars() // c needs b, which needs a: a chain of 2 needs under c
	for _, tc := range []struct {
		req  Request
		want string // "" no error
	}{
		{Request{Sidecars: all, MaxSidecars: 5, MaxDepth: 2}, ""},
		{Request{Sidecars: all, MaxSidecars: 4}, "the run would check 5 sidecars, more than limits.sidecars (4): check what a branch changed"},
		{Request{Sidecars: all, Check: []string{"a", "b"}, MaxSidecars: 2}, ""},
		{Request{Sidecars: all, MaxDepth: 1}, "sidecar c is installed over a chain of 2 needs (a -> b -> c), deeper than limits.needs_depth (1)"},
		{Request{Sidecars: all, Check: []string{"a", "b", "d", "e"}, MaxDepth: 1}, ""},
	} {
		err := tc.req.bounds(tc.req.checked())
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v, want no error", tc.req.Check, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || fault.KindOf(err) != fault.KindInput):
			t.Errorf("%+v: %v, want an input error with %q", tc.req.Check, err, tc.want)
		}
	}
}
