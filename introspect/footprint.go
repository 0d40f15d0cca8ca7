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
	b, bok := sortedUnique(before)
	a, aok := sortedUnique(after)
	if bok && aok {
		return mergeFacts(b, a)
	}
	return diffGrouped(before, after)
}

// sortedUnique returns facts sorted by key (facts itself when it is, as [Snapshot.Facts]
// returns them; else a sorted copy), and whether no key is there twice.
func sortedUnique(facts []Fact) ([]Fact, bool) {
	if !slices.IsSortedFunc(facts, compareFacts) {
		facts = slices.Clone(facts)
		slices.SortFunc(facts, compareFacts)
	}
	for i := 1; i < len(facts); i++ {
		if compareFacts(facts[i-1], facts[i]) == 0 {
			return facts, false
		}
	}
	return facts, true
}

// mergeFacts is [DiffFacts] of two fact lists sorted by key, each key once: one pass over both,
// in the order of the result, without the maps of [diffGrouped] (a rerun audit compares
// snapshots of thousands of facts several times).
func mergeFacts(before, after []Fact) *Footprint {
	fp := &Footprint{Created: []ObjectFacts{}, Dropped: []ObjectFacts{}, Changed: []Change{}}
	// object returns the end of the run of facts of facts[i]'s object.
	object := func(facts []Fact, i int) int {
		j := i + 1
		for j < len(facts) && facts[j].Kind == facts[i].Kind && facts[j].Object == facts[i].Object {
			j++
		}
		return j
	}
	byRef := func(x, y Fact) int { return cmp.Or(cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Object, y.Object)) }
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		var c int
		switch {
		case i == len(before):
			c = 1
		case j == len(after):
			c = -1
		default:
			c = byRef(before[i], after[j])
		}
		switch {
		case c < 0:
			e := object(before, i)
			fp.Dropped = append(fp.Dropped, ObjectFacts{before[i].Ref(), slices.Clone(before[i:e])})
			i = e
		case c > 0:
			e := object(after, j)
			fp.Created = append(fp.Created, ObjectFacts{after[j].Ref(), slices.Clone(after[j:e])})
			j = e
		default:
			be, ae := object(before, i), object(after, j)
			fp.Changed = appendChanges(fp.Changed, before[i:be], after[j:ae])
			i, j = be, ae
		}
	}
	return fp
}

// appendChanges appends the changes between the facts of one object on both sides, each sorted
// by attribute, each attribute once.
func appendChanges(out []Change, before, after []Fact) []Change {
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		var b, a Fact
		switch {
		case i == len(before):
			a = after[j]
			j++
		case j == len(after):
			b = before[i]
			i++
		default:
			switch c := cmp.Compare(before[i].Attr, after[j].Attr); {
			case c < 0:
				b = before[i]
				i++
			case c > 0:
				a = after[j]
				j++
			default:
				b, a = before[i], after[j]
				i++
				j++
			}
		}
		if b.Value == a.Value && b.Shown() == a.Shown() {
			continue
		}
		k := a.Key()
		if b.Kind != "" { // present before
			k = b.Key()
		}
		out = append(out, change(k, b, a))
	}
	return out
}

// change is the change of the fact k from b to a.
func change(k FactKey, b, a Fact) Change {
	c := Change{Kind: k.Kind, Object: k.Object, Attr: k.Attr, Before: b.Value, After: a.Value, Class: Semantic}
	if b.Display != "" || a.Display != "" {
		c.BeforeDisplay, c.AfterDisplay = b.Shown(), a.Shown()
	}
	if b.Value == a.Value {
		c.Class = Cosmetic
	}
	return c
}

// diffGrouped is [DiffFacts] of any two fact lists, a key there more than once included (the
// last one counts).
func diffGrouped(before, after []Fact) *Footprint {
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
		fp.Changed = append(fp.Changed, change(k, b, a))
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
