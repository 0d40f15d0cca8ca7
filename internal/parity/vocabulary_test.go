package parity

import (
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/diff"
	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// TestFindingsSpeakTheGlossary: the findings of a dimension mismatch and of one-sided objects are
// worded from diff's typed values (the variant, Expected and Found, the Presence enum), with no
// "left" or "right" and nothing rewritten after the fact; a dimension mismatch does not pass its
// expected and found types off as the artifact's and the port's columns.
func TestFindingsSpeakTheGlossary(t *testing.T) {
	pos := diff.Position{File: "port.sql", Line: 3, Col: 30}
	dim := diff.Difference{Kind: diff.KindDimension, Object: "function public.f", Attr: diff.Port.String(),
		Expected: "vector(1024)", Found: "vector(1536)", Class: introspect.Semantic, Pos: &pos,
		Note: "port.sql declares vector(1536) but the port is at dimension 1024 (expected vector(1024))"}
	artOnly := diff.Difference{Kind: "table", Object: "public.a", Artifact: "kind: table\n", Class: introspect.Semantic}
	portOnly := diff.Difference{Kind: "table", Object: "public.b", Port: "kind: table\n", Class: introspect.Semantic}
	r := &Report{Differences: []diff.Difference{dim, artOnly, portOnly}}
	r.Outcome = (*allowlist.File)(nil).Apply(r.Differences)
	want := map[string]string{
		"dimension function public.f": "port.sql declares vector(1536) but the port is at dimension 1024 (expected vector(1024))",
		"table public.a":              "table public.a: only in the artifact",
		"table public.b":              "table public.b: only in the port",
	}
	fs := r.Findings()
	if len(fs) != 3 {
		t.Fatalf("%d findings, want 3", len(fs))
	}
	for _, f := range fs {
		if f.Message != want[f.Object] {
			t.Errorf("%s: message %q, want %q", f.Object, f.Message, want[f.Object])
		}
		if low := strings.ToLower(f.Message); strings.Contains(low, "left") || strings.Contains(low, "right") {
			t.Errorf("%s: message %q says left or right", f.Object, f.Message)
		}
	}
	if fs[0].Object != "dimension function public.f" || fs[0].From != "" || fs[0].To != "" || fs[0].Pos.Line != 3 {
		t.Errorf("dimension finding %+v: want its position and no artifact/port columns", fs[0])
	}
	if artOnly.Presence() != diff.ArtifactOnly || portOnly.Presence() != diff.PortOnly || dim.Presence() != diff.InBoth {
		t.Errorf("presence: %v %v %v", artOnly.Presence(), portOnly.Presence(), dim.Presence())
	}
}
