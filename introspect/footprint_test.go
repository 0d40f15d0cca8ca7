package introspect

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// randomFacts returns facts of a few objects of two kinds, each attribute once per object, in
// a random order; values and displays are drawn from small sets so that both sides of a
// comparison share many of them, and some are empty.
func randomFacts(r *rand.Rand) []Fact {
	var out []Fact
	for _, kind := range []string{"function", "table"} {
		for o := range 6 {
			if r.IntN(4) == 0 {
				continue // the object is not there
			}
			for a := range 5 {
				if r.IntN(3) == 0 {
					continue
				}
				f := Fact{Kind: kind, Object: fmt.Sprintf("public.o%d", o), Attr: fmt.Sprintf("attr%d", a), Value: []string{"", "x", "y"}[r.IntN(3)]}
				if r.IntN(3) == 0 {
					f.Display = []string{"", "shown x", "shown y"}[r.IntN(3)]
				}
				out = append(out, f)
			}
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestDiffFactsMergeIsGrouped checks that the merge DiffFacts runs on lists whose keys are
// unique finds exactly what the grouping of any two lists finds, on random pairs, sorted or not.
func TestDiffFactsMergeIsGrouped(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 1))
	for i := range 2000 {
		before, after := randomFacts(r), randomFacts(r)
		if i%2 == 0 {
			slices.SortFunc(before, compareFacts)
			slices.SortFunc(after, compareFacts)
		}
		keep := slices.Clone(before)
		got, want := DiffFacts(before, after), diffGrouped(before, after)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("pair %d: merge and grouping differ:\nbefore %v\nafter  %v\nmerge    %+v\ngrouping %+v", i, before, after, got, want)
		}
		if !slices.Equal(before, keep) {
			t.Fatalf("pair %d: DiffFacts reordered its input", i)
		}
	}
}

// TestDiffFactsDuplicateKeys checks that a key given twice is compared by its last fact, as
// the grouping does.
func TestDiffFactsDuplicateKeys(t *testing.T) {
	before := []Fact{{Kind: "table", Object: "public.t", Attr: "owner", Value: "a"}, {Kind: "table", Object: "public.t", Attr: "owner", Value: "b"}}
	after := []Fact{{Kind: "table", Object: "public.t", Attr: "owner", Value: "b"}}
	if fp := DiffFacts(before, after); !fp.Empty() {
		t.Fatalf("the last fact of a key counts: got %+v", fp)
	}
}
