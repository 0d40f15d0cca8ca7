package locate

import (
	"testing"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// A finding's object of every catalog kind (introspect's table of kinds) splits as that kind:
// a kind locate does not know cannot be pointed at its statement.
func TestSplitRefKnowsEveryKind(t *testing.T) {
	for _, k := range introspect.Kinds() {
		kind, object, ok := SplitRef(k.Name + " public.x")
		if !ok || kind != k.Name || object != "public.x" {
			t.Errorf("SplitRef(%q) = %q, %q, %v", k.Name+" public.x", kind, object, ok)
		}
	}
}
