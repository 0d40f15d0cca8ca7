package introspect

import (
	"slices"
	"strings"
)

// Deployed returns what the database whose snapshot is live holds of the objects that the
// reference footprints touched, as a footprint comparable with theirs: the footprint a
// migration's install would have, had it produced that database. It answers "is this deployment
// still what was installed and reviewed?" without reading anything else of the database (a
// production database holds much more than one sidecar).
//
//   - An object some reference created is created here with all its live facts (owner, ACL,
//     comment and every other attribute), or is absent when the database lacks it.
//   - An attribute some reference changed on an object that existed before is changed here to
//     its live value, whatever it is; an object the database lacks is dropped here.
//   - An object some reference dropped is dropped here when the database lacks it.
//   - Everything attached to a table, view or type some reference created, and everything in a
//     schema some reference created, is in scope too: columns, constraints, indexes, triggers,
//     policies, rules, extended statistics, sequences owned by their columns. An index or policy
//     a deployment added to the sidecar's table is therefore a created object no reference has.
//
// Every other object of the database is out of scope, and so is every attribute of a
// pre-existing object that no reference changed.
func Deployed(live *Snapshot, refs ...*Footprint) *Footprint {
	objs, byKey := groupFacts(live.Facts())
	created := map[ObjectRef]bool{}
	changed := map[FactKey]Change{}
	dropped := map[ObjectRef]bool{}
	for _, fp := range refs {
		if fp == nil {
			continue
		}
		for _, o := range fp.Created {
			created[o.ObjectRef] = true
		}
		for _, c := range fp.Changed {
			if _, ok := changed[FactKey{c.Kind, c.Object, c.Attr}]; !ok {
				changed[FactKey{c.Kind, c.Object, c.Attr}] = c
			}
		}
		for _, o := range fp.Dropped {
			dropped[o.ObjectRef] = true
		}
	}
	owners, schemas := map[ObjectRef]bool{}, map[string]bool{}
	for ref := range created {
		switch ref.Kind {
		case KindTable, KindView, KindType:
			owners[ref] = true
		case KindSchema:
			schemas[ref.Object] = true
		}
	}
	for ref, facts := range objs {
		if !created[ref] && attached(ref, facts, owners, schemas) {
			created[ref] = true
		}
	}

	fp := &Footprint{Created: []ObjectFacts{}, Dropped: []ObjectFacts{}, Changed: []Change{}}
	for ref := range created {
		if facts, ok := objs[ref]; ok {
			fp.Created = append(fp.Created, ObjectFacts{ref, facts})
		}
	}
	for k, c := range changed {
		ref := ObjectRef{k.Kind, k.Object}
		if created[ref] {
			continue
		}
		if _, ok := objs[ref]; !ok {
			dropped[ref] = true
			continue
		}
		f := byKey[k]
		fp.Changed = append(fp.Changed, Change{Kind: k.Kind, Object: k.Object, Attr: k.Attr, Before: c.Before, After: f.Value,
			BeforeDisplay: c.BeforeDisplay, AfterDisplay: f.Display, Class: Semantic})
	}
	for ref := range dropped {
		if _, ok := objs[ref]; !ok {
			fp.Dropped = append(fp.Dropped, ObjectFacts{ObjectRef: ref, Facts: []Fact{}})
		}
	}
	byRef := func(a, b ObjectFacts) int { return compareRefs(a.ObjectRef, b.ObjectRef) }
	slices.SortFunc(fp.Created, byRef)
	slices.SortFunc(fp.Dropped, byRef)
	slices.SortFunc(fp.Changed, func(a, b Change) int {
		return compareFacts(Fact{Kind: a.Kind, Object: a.Object, Attr: a.Attr}, Fact{Kind: b.Kind, Object: b.Object, Attr: b.Attr})
	})
	return fp
}

func compareRefs(a, b ObjectRef) int {
	return compareFacts(Fact{Kind: a.Kind, Object: a.Object}, Fact{Kind: b.Kind, Object: b.Object})
}

// attached reports whether the object ref (with its facts) belongs to one of owners (created
// tables, views and types: its kind's [Parent]) or lies in one of schemas (created schemas, by
// identity, for the kinds whose identity starts with their schema).
func attached(ref ObjectRef, facts []Fact, owners map[ObjectRef]bool, schemas map[string]bool) bool {
	attr := func(name string) string {
		for _, f := range facts {
			if f.Attr == name {
				return f.Value
			}
		}
		return ""
	}
	if rel := ParentOf(ref.Kind, ref.Object, attr); rel != "" &&
		(owners[ObjectRef{KindTable, rel}] || owners[ObjectRef{KindView, rel}] || owners[ObjectRef{KindType, rel}]) {
		return true
	}
	if k, _ := kindNamed(ref.Kind); k.InSchema {
		for s := range schemas {
			if strings.HasPrefix(ref.Object, s+".") {
				return true
			}
		}
	}
	return false
}
