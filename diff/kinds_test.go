package diff

import (
	"testing"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// An object of every kind whose identity names the relation or type it belongs to (introspect's
// table of kinds: "x on public.t", "public.t.x") folds into it when both are created; a kind
// parentOf does not know would be a difference of its own beside its table's.
func TestParentOfEveryKind(t *testing.T) {
	for _, k := range introspect.Kinds() {
		var object string
		switch k.Parent {
		case introspect.ParentDotted:
			object = "public.t.x"
		case introspect.ParentOn:
			object = "x on public.t"
		default: // no parent, or one a fact names (flatten)
			if p, ok := parentOf(introspect.ObjectRef{Kind: k.Name, Object: "public.x"}); ok {
				t.Errorf("%s public.x belongs to %s", k.Name, p)
			}
			continue
		}
		want := introspect.ObjectRef{Kind: introspect.KindTable, Object: "public.t"}
		if k.Name == introspect.KindAttribute {
			want.Kind = introspect.KindType
		}
		if p, ok := parentOf(introspect.ObjectRef{Kind: k.Name, Object: object}); !ok || p != want {
			t.Errorf("%s %s belongs to %v, %v; want %v", k.Name, object, p, ok, want)
		}
	}
}
