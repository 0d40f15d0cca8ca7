package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// A footprint shows its objects in the table of kinds' order (containers before their
// contents), whatever order they come in: a kind the text writer does not know would be shown
// first, with the roles.
func TestFootprintTextShowsEveryKindInTableOrder(t *testing.T) {
	kinds := introspect.Kinds()
	fp := &introspect.Footprint{}
	for _, k := range slices.Backward(kinds) {
		ref := introspect.ObjectRef{Kind: k.Name, Object: "public.x"}
		fp.Created = append(fp.Created, introspect.ObjectFacts{ObjectRef: ref,
			Facts: []introspect.Fact{{Kind: k.Name, Object: "public.x", Attr: "comment", Value: "c"}}})
	}
	var b strings.Builder
	if err := WriteFootprintText(&b, fp); err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, line := range strings.Split(b.String(), "\n") {
		if k, ok := strings.CutPrefix(line, "created "); ok {
			got = append(got, strings.TrimSuffix(k, " public.x"))
		}
	}
	for _, k := range kinds {
		want = append(want, k.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("kinds shown in the order\n%v\nwant\n%v", got, want)
	}
}
