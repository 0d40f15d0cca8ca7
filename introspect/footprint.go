package introspect

import (
	"cmp"
	"slices"
)

// Class tells whether a change alters behaviour.
type Class string

// The classes of a change.
const (
	// Semantic: the compared value differs.
	Semantic Class = "semantic"
	// Cosmetic: the compared value is the same and only the displayed text differs (a function
	// body whose whitespace or comments changed).
	Cosmetic Class = "cosmetic"
)

// Change is one attribute of an object that exists on both sides and differs.
type Change struct {
	Kind   string `json:"kind"`
	Object string `json:"object"`
	Attr   string `json:"attr"`
	// Before and After are the compared values (empty: the fact was absent).
	Before string `json:"before"`
	After  string `json:"after"`
	// BeforeDisplay and AfterDisplay are set when the displayed text differs from the value
	// (a function's raw body).
	BeforeDisplay string `json:"before_display,omitempty"`
	AfterDisplay  string `json:"after_display,omitempty"`
	Class         Class  `json:"class"`
}

// Ref is the object changed.
func (c Change) Ref() ObjectRef { return ObjectRef{c.Kind, c.Object} }

// ObjectFacts is an object with all its facts.
type ObjectFacts struct {
	ObjectRef
	Facts []Fact `json:"facts"`
}

// Footprint is what changed between two snapshots: for a migration, taken before and after
// installing it.
type Footprint struct {
	// Created are the objects only the second snapshot has, with their facts.
	Created []ObjectFacts `json:"created"`
	// Dropped are the objects only the first snapshot has, with their facts.
	Dropped []ObjectFacts `json:"dropped"`
	// Changed are the differing attributes of objects both snapshots have.
	Changed []Change `json:"changed"`
}

// Empty reports whether nothing changed, not even cosmetically.
func (f *Footprint) Empty() bool {
	return len(f.Created) == 0 && len(f.Dropped) == 0 && len(f.Changed) == 0
}

// Facts flattens the footprint for comparing two footprints (a migration and its port): the
// facts of created objects; for each changed attribute, a fact with the after value (and display);
// for each dropped object a single fact with Attr "dropped" and Value "true".
func (f *Footprint) Facts() []Fact {
	var out []Fact
	for _, o := range f.Created {
		out = append(out, o.Facts...)
	}
	for _, c := range f.Changed {
		out = append(out, Fact{Kind: c.Kind, Object: c.Object, Attr: c.Attr, Value: c.After, Display: c.AfterDisplay})
	}
	for _, o := range f.Dropped {
		out = append(out, Fact{Kind: o.Kind, Object: o.Object, Attr: "dropped", Value: "true"})
	}
	slices.SortFunc(out, compareFacts)
	return out
}

// Diff compares two snapshots.
func Diff(before, after *Snapshot) *Footprint {
	return DiffFacts(before.Facts(), after.Facts())
}

// DiffFacts compares two fact lists as [Diff] does; a fact missing on one side counts as an
// empty value.
func DiffFacts(before, after []Fact) *Footprint {
	bo, bf := groupFacts(before)
	ao, af := groupFacts(after)
	fp := &Footprint{Created: []ObjectFacts{}, Dropped: []ObjectFacts{}, Changed: []Change{}}
	for ref, facts := range ao {
		if _, ok := bo[ref]; !ok {
			fp.Created = append(fp.Created, ObjectFacts{ref, facts})
		}
	}
	for ref, facts := range bo {
		if _, ok := ao[ref]; !ok {
			fp.Dropped = append(fp.Dropped, ObjectFacts{ref, facts})
			continue
		}
	}
	keys := map[FactKey]bool{}
	for k := range af {
		keys[k] = true
	}
	for k := range bf {
		keys[k] = true
	}
	for k := range keys {
		ref := ObjectRef{k.Kind, k.Object}
		if _, ok := bo[ref]; !ok {
			continue
		}
		if _, ok := ao[ref]; !ok {
			continue
		}
		b, a := bf[k], af[k]
		if b.Value == a.Value && b.Shown() == a.Shown() {
			continue
		}
		c := Change{Kind: k.Kind, Object: k.Object, Attr: k.Attr, Before: b.Value, After: a.Value, Class: Semantic}
		if b.Display != "" || a.Display != "" {
			c.BeforeDisplay, c.AfterDisplay = b.Shown(), a.Shown()
		}
		if b.Value == a.Value {
			c.Class = Cosmetic
		}
		fp.Changed = append(fp.Changed, c)
	}
	byRef := func(a, b ObjectFacts) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Object, b.Object))
	}
	slices.SortFunc(fp.Created, byRef)
	slices.SortFunc(fp.Dropped, byRef)
	slices.SortFunc(fp.Changed, func(a, b Change) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Object, b.Object), cmp.Compare(a.Attr, b.Attr))
	})
	return fp
}

func groupFacts(facts []Fact) (map[ObjectRef][]Fact, map[FactKey]Fact) {
	objs := map[ObjectRef][]Fact{}
	byKey := make(map[FactKey]Fact, len(facts))
	for _, f := range facts {
		objs[f.Ref()] = append(objs[f.Ref()], f)
		byKey[f.Key()] = f
	}
	for _, fs := range objs {
		slices.SortFunc(fs, compareFacts)
	}
	return objs, byKey
}
