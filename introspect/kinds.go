package introspect

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
)

// Object kinds used in facts: the names of the kinds of the table below.
const (
	KindSchema            = "schema"
	KindExtension         = "extension"
	KindType              = "type"
	KindAttribute         = "attribute"
	KindTable             = "table"
	KindColumn            = "column"
	KindConstraint        = "constraint"
	KindIndex             = "index"
	KindView              = "view"
	KindSequence          = "sequence"
	KindFunction          = "function"
	KindTrigger           = "trigger"
	KindPolicy            = "policy"
	KindDefaultPrivileges = "default privileges"
	KindRole              = "role"
	KindRule              = "rule"
	KindOperator          = "operator"
	KindCast              = "cast"
	KindCollation         = "collation"
	KindStatistics        = "statistics"
	KindTextSearchConfig  = "text search configuration"
	KindTextSearchDict    = "text search dictionary"
	KindEventTrigger      = "event trigger"
	KindPublication       = "publication"
)

// KindSpec is one kind of catalog object: everything ledgercheck knows of a kind besides its
// query's SQL (queries/NAME.sql) and its model struct's fields, in one row of [Kinds]. Facts, the snapshot's
// sort, the decoding of its query and every consumer of kinds (the snapshot's reading order,
// locate, the deployment scope, the rerun audit's folding) read the row, so that a kind is
// added in one place (docs/architecture.md, "Adding a catalog kind").
type KindSpec struct {
	// Name is the kind as facts, differences and findings name it ("table", "event trigger").
	Name string
	// queries are the catalog queries that read the kind, in batch order; none for a kind read
	// with another (attribute: the columns query reads composite types' attributes too).
	queries []string
	// Parent is how an object of the kind belongs to a relation or type, if it does.
	Parent Parent
	// InSchema is true when the kind's identity starts with its schema (schema.name...).
	InSchema bool
	// model is the struct type of one object; its fields' fact tags make its facts.
	model reflect.Type
	// nested is true for a kind whose objects are held by another's (columns by a table):
	// it has no list of its own in a snapshot.
	nested bool
	// identity is the object's identity, given the identity of the object holding it (nested
	// kinds) or "".
	identity func(obj reflect.Value, parent string) string
	// list is the kind's list in a snapshot (a pointer to a slice of model), for top-level kinds.
	list func(s *Snapshot) any
	// sort sorts the kind's list by identity and normalizes each object's inner lists.
	sort func(s *Snapshot)
	// empty replaces a nil list by an empty one, so that JSON shows [] for "none".
	empty func(s *Snapshot)
}

// Parent is how an object belongs to a relation or type: the deployment scope takes it in with
// its parent, the rerun audit folds it into its parent's finding.
type Parent int

// The ways an object names its parent.
const (
	// NoParent: the object stands alone.
	NoParent Parent = iota
	// ParentDotted: the identity is the parent's, a dot and the object's name (a column).
	ParentDotted
	// ParentOn: the identity is "name on parent" (a trigger, a policy).
	ParentOn
	// ParentTable: the fact "table" names the parent (an index, a statistics object).
	ParentTable
	// ParentOwnedBy: the fact "owned_by" names a column of the parent (an owned sequence).
	ParentOwnedBy
)

// Kinds returns the catalog kinds in reading order: containers before their contents, the
// order in which a snapshot is shown. The result is a copy.
func Kinds() []KindSpec { return slices.Clone(kinds) }

// kinds is the table of catalog kinds. Each row is the kind's name, its queries, its model (the
// fact tags of its struct), its identity and its order.
var kinds = []KindSpec{
	top(KindRole, []string{"roles"}, NoParent, false, func(s *Snapshot) *[]Role { return &s.Roles },
		func(x *Role) string { return ident(x.Name) }, byName(func(x *Role) string { return x.Name }),
		func(x *Role) { slices.Sort(x.MemberOf); slices.Sort(x.Config) }),
	top(KindSchema, []string{"schemas"}, NoParent, false, func(s *Snapshot) *[]Schema { return &s.Schemas },
		func(x *Schema) string { return ident(x.Name) }, byName(func(x *Schema) string { return x.Name }),
		func(x *Schema) { normACL(x.ACL) }),
	top(KindExtension, []string{"extensions"}, NoParent, false, func(s *Snapshot) *[]Extension { return &s.Extensions },
		func(x *Extension) string { return ident(x.Name) }, byName(func(x *Extension) string { return x.Name }), nil),
	top(KindDefaultPrivileges, []string{"default_privileges"}, NoParent, false,
		func(s *Snapshot) *[]DefaultPrivilege { return &s.DefaultPrivileges }, (*DefaultPrivilege).Identity,
		func(a, b *DefaultPrivilege) int {
			return cmp.Or(cmp.Compare(a.Role, b.Role), cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.ObjectType, b.ObjectType))
		}, func(x *DefaultPrivilege) { normACL(x.ACL) }),
	top(KindType, []string{"types"}, NoParent, true, func(s *Snapshot) *[]Type { return &s.Types },
		func(x *Type) string { return qualify(x.Schema, x.Name) }, byPair(func(x *Type) (string, string) { return x.Schema, x.Name }),
		func(x *Type) {
			normACL(x.ACL)
			sortConstraints(x.Constraints)
			for j := range x.Attributes {
				normACL(x.Attributes[j].ACL)
			}
		}),
	nested[Column](KindAttribute, nil, ParentDotted, false, func(x *Column, parent string) string { return parent + "." + ident(x.Name) }),
	top(KindTable, []string{"tables"}, NoParent, true, func(s *Snapshot) *[]Table { return &s.Tables },
		func(x *Table) string { return qualify(x.Schema, x.Name) }, byPair(func(x *Table) (string, string) { return x.Schema, x.Name }),
		func(x *Table) {
			normACL(x.ACL)
			slices.Sort(x.Options)
			for j := range x.Columns {
				normACL(x.Columns[j].ACL)
			}
			sortConstraints(x.Constraints)
			sortIndexes(x.Indexes)
		}),
	nested[Column](KindColumn, []string{"columns"}, ParentDotted, false, func(x *Column, parent string) string { return parent + "." + ident(x.Name) }),
	nested[Constraint](KindConstraint, []string{"constraints"}, ParentOn, false, func(x *Constraint, parent string) string { return ident(x.Name) + " on " + parent }),
	nested[Index](KindIndex, []string{"indexes"}, ParentTable, true, func(x *Index, _ string) string { return qualify(x.Schema, x.Name) }),
	top(KindStatistics, []string{"statistics"}, ParentTable, true, func(s *Snapshot) *[]Statistics { return &s.Statistics },
		func(x *Statistics) string { return qualify(x.Schema, x.Name) }, byPair(func(x *Statistics) (string, string) { return x.Schema, x.Name }), nil),
	top(KindPolicy, []string{"policies"}, ParentOn, false, func(s *Snapshot) *[]Policy { return &s.Policies },
		func(x *Policy) string { return ident(x.Name) + " on " + x.Table }, byPair(func(x *Policy) (string, string) { return x.Table, x.Name }),
		func(x *Policy) { slices.Sort(x.Roles) }),
	top(KindTrigger, []string{"triggers"}, ParentOn, false, func(s *Snapshot) *[]Trigger { return &s.Triggers },
		func(x *Trigger) string { return ident(x.Name) + " on " + x.Table }, byPair(func(x *Trigger) (string, string) { return x.Table, x.Name }), nil),
	top(KindRule, []string{"rules"}, ParentOn, false, func(s *Snapshot) *[]Rule { return &s.Rules },
		func(x *Rule) string { return ident(x.Name) + " on " + x.Table }, byPair(func(x *Rule) (string, string) { return x.Table, x.Name }), nil),
	top(KindView, []string{"views"}, NoParent, true, func(s *Snapshot) *[]View { return &s.Views },
		func(x *View) string { return qualify(x.Schema, x.Name) }, byPair(func(x *View) (string, string) { return x.Schema, x.Name }),
		func(x *View) {
			normACL(x.ACL)
			slices.Sort(x.Options)
			for j := range x.Columns {
				normACL(x.Columns[j].ACL)
			}
			sortIndexes(x.Indexes)
		}),
	top(KindSequence, []string{"sequences"}, ParentOwnedBy, true, func(s *Snapshot) *[]Sequence { return &s.Sequences },
		func(x *Sequence) string { return qualify(x.Schema, x.Name) }, byPair(func(x *Sequence) (string, string) { return x.Schema, x.Name }),
		func(x *Sequence) { normACL(x.ACL) }),
	top(KindFunction, []string{"functions", "aggregates"}, NoParent, true, func(s *Snapshot) *[]Function { return &s.Functions },
		(*Function).Identity, func(a, b *Function) int {
			return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ArgTypes, b.ArgTypes))
		}, func(x *Function) { normACL(x.ACL); slices.Sort(x.Config) }),
	top(KindOperator, []string{"operators"}, NoParent, true, func(s *Snapshot) *[]Operator { return &s.Operators },
		(*Operator).Identity, func(a, b *Operator) int { return cmp.Compare(a.Identity(), b.Identity()) }, nil),
	top(KindCast, []string{"casts"}, NoParent, false, func(s *Snapshot) *[]Cast { return &s.Casts },
		(*Cast).Identity, func(a, b *Cast) int { return cmp.Compare(a.Identity(), b.Identity()) }, nil),
	top(KindCollation, []string{"collations"}, NoParent, true, func(s *Snapshot) *[]Collation { return &s.Collations },
		func(x *Collation) string { return qualify(x.Schema, x.Name) }, byPair(func(x *Collation) (string, string) { return x.Schema, x.Name }), nil),
	top(KindTextSearchDict, []string{"text_search_dictionaries"}, NoParent, true,
		func(s *Snapshot) *[]TextSearchDict { return &s.TextSearchDicts },
		func(x *TextSearchDict) string { return qualify(x.Schema, x.Name) },
		byPair(func(x *TextSearchDict) (string, string) { return x.Schema, x.Name }), nil),
	top(KindTextSearchConfig, []string{"text_search_configurations"}, NoParent, true,
		func(s *Snapshot) *[]TextSearchConfig { return &s.TextSearchConfigs },
		func(x *TextSearchConfig) string { return qualify(x.Schema, x.Name) },
		byPair(func(x *TextSearchConfig) (string, string) { return x.Schema, x.Name }),
		func(x *TextSearchConfig) {
			slices.SortFunc(x.Mapping, func(a, b TokenMapping) int { return cmp.Compare(a.Token, b.Token) })
		}),
	top(KindEventTrigger, []string{"event_triggers"}, NoParent, false, func(s *Snapshot) *[]EventTrigger { return &s.EventTriggers },
		func(x *EventTrigger) string { return ident(x.Name) }, byName(func(x *EventTrigger) string { return x.Name }),
		func(x *EventTrigger) { slices.Sort(x.Tags) }),
	top(KindPublication, []string{"publications"}, NoParent, false, func(s *Snapshot) *[]Publication { return &s.Publications },
		func(x *Publication) string { return ident(x.Name) }, byName(func(x *Publication) string { return x.Name }),
		func(x *Publication) {
			slices.SortFunc(x.Tables, func(a, b PublishedTable) int { return cmp.Compare(a.Table, b.Table) })
			slices.Sort(x.Schemas)
		}),
}

// top is the row of a kind with a list of its own in a snapshot: list returns it, identity
// names an object, compare orders the list and norm (optional) normalizes an object's inner
// lists.
func top[T any](name string, queries []string, parent Parent, inSchema bool, list func(*Snapshot) *[]T,
	identity func(*T) string, compare func(a, b *T) int, norm func(*T)) KindSpec {
	return KindSpec{
		Name: name, queries: queries, Parent: parent, InSchema: inSchema, model: reflect.TypeFor[T](),
		identity: func(v reflect.Value, _ string) string { return identity(v.Addr().Interface().(*T)) },
		list:     func(s *Snapshot) any { return list(s) },
		sort: func(s *Snapshot) {
			l := *list(s)
			slices.SortFunc(l, func(a, b T) int { return compare(&a, &b) })
			if norm != nil {
				for i := range l {
					norm(&l[i])
				}
			}
		},
		empty: func(s *Snapshot) {
			if l := list(s); *l == nil {
				*l = []T{}
			}
		},
	}
}

// nested is the row of a kind whose objects another kind's objects hold (a table's columns).
func nested[T any](name string, queries []string, parent Parent, inSchema bool, identity func(x *T, parent string) string) KindSpec {
	return KindSpec{
		Name: name, queries: queries, Parent: parent, InSchema: inSchema, model: reflect.TypeFor[T](), nested: true,
		identity: func(v reflect.Value, p string) string { return identity(v.Addr().Interface().(*T), p) },
	}
}

// byName orders objects by name.
func byName[T any](name func(*T) string) func(a, b *T) int {
	return func(a, b *T) int { return cmp.Compare(name(a), name(b)) }
}

// byPair orders objects by two names: schema (or table) first, then name.
func byPair[T any](names func(*T) (string, string)) func(a, b *T) int {
	return func(a, b *T) int {
		as, an := names(a)
		bs, bn := names(b)
		return cmp.Or(cmp.Compare(as, bs), cmp.Compare(an, bn))
	}
}

// kindNamed returns the row of the kind name.
func kindNamed(name string) (KindSpec, bool) {
	k, ok := kindByName[name]
	return k, ok
}

var kindByName = func() map[string]KindSpec {
	m := make(map[string]KindSpec, len(kinds))
	for _, k := range kinds {
		m[k.Name] = k
	}
	return m
}()

// ParentOf returns the identity of the relation or type an object of kind belongs to, by the
// kind's [Parent] ("public.t" for "column public.t.c", "trigger tg on public.t", an index whose
// fact "table" is public.t, a sequence owned by public.t.id), or "" for an object that belongs to
// none. attr returns the object's fact of that attribute.
func ParentOf(kind, object string, attr func(string) string) string {
	before := func(s, sep string) string {
		if i := strings.LastIndex(s, sep); i > 0 {
			return s[:i]
		}
		return ""
	}
	switch kindByName[kind].Parent {
	case ParentDotted:
		return before(object, ".")
	case ParentOn:
		if i := strings.LastIndex(object, " on "); i > 0 {
			return object[i+len(" on "):]
		}
	case ParentTable:
		return attr("table")
	case ParentOwnedBy:
		return before(attr("owned_by"), ".")
	}
	return ""
}

// kindTarget returns the list of s that the query name of a top-level kind decodes into.
func kindTarget(s *Snapshot, name string) (any, bool) {
	for _, k := range kinds {
		if !k.nested && slices.Contains(k.queries, name) {
			return k.list(s), true
		}
	}
	return nil, false
}

// queryNames lists the catalog queries in the order they are sent in the batch: the kinds'.
var queryNames = func() []string {
	var out []string
	for _, k := range kinds {
		out = append(out, k.queries...)
	}
	return out
}()
