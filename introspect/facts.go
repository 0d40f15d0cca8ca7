package introspect

import (
	"cmp"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// Fact is one attribute of one object: the unit two snapshots are compared by. Facts are keyed
// by (Kind, Object, Attr); a fact missing on one side is the same as an empty Value.
type Fact struct {
	// Kind is the object kind, the name of one of [Kinds] (table, column, policy, ...).
	// Finer kinds (partitioned table, materialized view, procedure, enum, ...) are the "kind"
	// attribute.
	Kind string `json:"kind"`
	// Object is the object's stable identity (see the package documentation).
	Object string `json:"object"`
	// Attr names the attribute: owner, rls, force_rls, acl:<grantee>, config:<setting>, body, ...
	Attr string `json:"attr"`
	// Value is what comparisons use. For a function body it is the normalized body.
	Value string `json:"value"`
	// Display, when set, is the text to show instead of Value (the raw body). Two facts with the
	// same Value and different Display differ only cosmetically.
	Display string `json:"display,omitempty"`
}

// Key identifies a fact across snapshots.
func (f Fact) Key() FactKey { return FactKey{f.Kind, f.Object, f.Attr} }

// Ref is the object the fact belongs to.
func (f Fact) Ref() ObjectRef { return ObjectRef{f.Kind, f.Object} }

// Shown is the text to show for the fact: Display when set, else Value.
func (f Fact) Shown() string {
	if f.Display != "" {
		return f.Display
	}
	return f.Value
}

// FactKey is the (Kind, Object, Attr) key of a [Fact].
type FactKey struct{ Kind, Object, Attr string }

// ObjectRef identifies an object: its kind and identity.
type ObjectRef struct {
	Kind   string `json:"kind"`
	Object string `json:"object"`
}

func (r ObjectRef) String() string { return r.Kind + " " + r.Object }

// Facts flattens s into facts sorted by (Kind, Object, Attr). Every attribute of every object
// in the snapshot is a fact, so a comparison of facts misses nothing the snapshot holds: the fact
// tags of each kind's model (see [KindSpec]) say how each field becomes facts.
func (s *Snapshot) Facts() []Fact {
	var fb factBuilder
	for i := range kinds {
		k := &kinds[i]
		if k.nested {
			continue
		}
		l := reflect.ValueOf(k.list(s)).Elem()
		for j := range l.Len() {
			fb.object(k, l.Index(j), "")
		}
	}
	slices.SortFunc(fb.facts, compareFacts)
	return fb.facts
}

func compareFacts(a, b Fact) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Object, b.Object), cmp.Compare(a.Attr, b.Attr))
}

// Identity is the function's stable identity: schema.name(argument types).
func (f Function) Identity() string {
	return qualify(f.Schema, f.Name) + "(" + f.ArgTypes + ")"
}

// Identity is the operator's stable identity, as OPERATOR() and DROP OPERATOR name it:
// schema.name(left type, right type), the name unquoted (it is made of symbols), the left type
// NONE for a prefix operator.
func (o Operator) Identity() string {
	return ident(o.Schema) + "." + o.Name + "(" + o.LeftType + ", " + o.RightType + ")"
}

// Identity is the cast's stable identity, as CREATE CAST names it: (source AS target).
func (c Cast) Identity() string { return "(" + c.Source + " AS " + c.Target + ")" }

// Published is what the publication publishes of the table: "all columns" or "columns a, b",
// and "where (...)" for a row filter.
func (t PublishedTable) Published() string {
	s := "all columns"
	if len(t.Columns) > 0 {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = ident(c)
		}
		s = "columns " + strings.Join(cols, ", ")
	}
	if t.Where != "" {
		s += " where " + t.Where
	}
	return s
}

// Identity is the entry's stable identity, as ALTER DEFAULT PRIVILEGES would name it:
// "for role postgres in schema public on tables".
func (d DefaultPrivilege) Identity() string {
	s := "for role " + ident(d.Role)
	if d.Schema != "" {
		s += " in schema " + ident(d.Schema)
	}
	return s + " on " + d.ObjectType
}

type factBuilder struct{ facts []Fact }

type objFacts struct {
	fb           *factBuilder
	kind, object string
}

func (fb *factBuilder) obj(kind, object string) objFacts { return objFacts{fb, kind, object} }

func (o objFacts) add(attr, value string) {
	o.fb.facts = append(o.fb.facts, Fact{Kind: o.kind, Object: o.object, Attr: attr, Value: value})
}

func (o objFacts) addDisplay(attr, value, display string) {
	f := Fact{Kind: o.kind, Object: o.object, Attr: attr, Value: value}
	if display != value {
		f.Display = display
	}
	o.fb.facts = append(o.fb.facts, f)
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_$]*$`)

// ident double-quotes name unless it is a plain lower-case identifier.
func ident(name string) string {
	if plainIdent.MatchString(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// qualify joins names with dots, each through ident.
func qualify(names ...string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = ident(n)
	}
	return strings.Join(q, ".")
}

// nonNil replaces the nil top-level lists of s by empty ones, so that JSON shows [] for "none".
func nonNil(s *Snapshot) {
	for _, k := range kinds {
		if k.empty != nil {
			k.empty(s)
		}
	}
}
