package rerun

import (
	"slices"
	"testing"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// An object of every kind that belongs to a table (introspect's table of kinds) is folded into
// the finding of its table when both were created or dropped: a kind the rerun audit does not
// know would be a finding of its own beside its table's.
func TestParentsOfEveryKind(t *testing.T) {
	table := introspect.ObjectRef{Kind: introspect.KindTable, Object: "public.t"}
	for _, k := range introspect.Kinds() {
		o := introspect.ObjectFacts{ObjectRef: introspect.ObjectRef{Kind: k.Name, Object: "public.x"}}
		switch k.Parent {
		case introspect.NoParent:
			if p := parents(o); p != nil {
				t.Errorf("%s belongs to %v", o.ObjectRef, p)
			}
			continue
		case introspect.ParentDotted:
			o.Object = "public.t.x"
		case introspect.ParentOn:
			o.Object = "x on public.t"
		case introspect.ParentTable:
			o.Facts = []introspect.Fact{{Kind: k.Name, Object: o.Object, Attr: "table", Value: "public.t"}}
		case introspect.ParentOwnedBy:
			o.Facts = []introspect.Fact{{Kind: k.Name, Object: o.Object, Attr: "owned_by", Value: "public.t.id"}}
		}
		if !slices.Contains(parents(o), table) {
			t.Errorf("%s belongs to %v, not its table", o.ObjectRef, parents(o))
		}
	}
}
