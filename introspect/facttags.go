package introspect

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// A model struct says how each of its fields becomes facts with a `fact` tag, so that an
// attribute is written twice (the query's JSON key and the struct) and never dropped: a field
// without a tag is an error of the kinds test (TestEveryModelFieldIsAFact). The tag is
//
//	fact:"ATTR[,option...]"   the field is the fact ATTR (strings as they are, booleans and
//	                          numbers formatted, a list of strings joined with ", ")
//	fact:"-,identity"         the field is part of the object's identity (the kind's row)
//	fact:"-,internal"         the field says how another was obtained; it is not compared
//	fact:"-,kind=KIND"        the field holds objects of the nested kind KIND (a table's columns)
//	fact:"-,inline"           the field points to a struct whose fields are facts of this object
//
// with the options
//
//	entries        a list: one fact ATTR:KEY per element ([Grant]: its grantee; a setting
//	               "key=value": its key; an element with a factEntry method: its key)
//	value=TEXT     with entries, a list of names: ATTR:NAME is TEXT
//	display        the field is the text shown for ATTR, whose value another field holds
//	omitempty      no fact when the value is empty
//	if=FIELD:TEXT  a fact only when the field whose JSON name is FIELD is TEXT
const factTag = "fact"

// factEntry is a list element that is a fact of its own: its key (after "ATTR:") and value.
type factEntry interface{ factEntry() (key, value string) }

func (g Grant) factEntry() (string, string) { return g.Grantee, strings.Join(g.Privileges, ", ") }

func (m TokenMapping) factEntry() (string, string) { return m.Token, m.Dictionaries }

func (t PublishedTable) factEntry() (string, string) { return t.Table, t.Published() }

type fieldUse int

const (
	useScalar fieldUse = iota
	useEntries
	useDisplay
	useIdentity
	useInternal
	useNested
	useInline
)

// fieldPlan is one field's tag, read.
type fieldPlan struct {
	index     int
	name      string // the Go field name
	attr      string
	use       fieldUse
	nested    string // the nested kind
	value     string // entries' value=
	omitEmpty bool
	ifField   int // -1: unconditional
	ifValue   string
	display   int // the field holding this attribute's display text, or -1
}

// typePlan is a model struct's fields, read, and what is wrong with its tags.
type typePlan struct {
	fields []fieldPlan
	errs   []string
}

var plans sync.Map // reflect.Type -> *typePlan

// planOf reads the fact tags of the struct type t (once).
func planOf(t reflect.Type) *typePlan {
	if p, ok := plans.Load(t); ok {
		return p.(*typePlan)
	}
	p := readPlan(t)
	plans.Store(t, p)
	return p
}

func readPlan(t reflect.Type) *typePlan {
	p := &typePlan{}
	byJSON := map[string]int{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		byJSON[name] = i
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		fp := fieldPlan{index: i, name: sf.Name, ifField: -1, display: -1}
		tag, ok := sf.Tag.Lookup(factTag)
		if !ok {
			// Not dropped: a scalar field reads as the fact of its JSON name. The kinds test
			// still asks for the tag.
			p.errs = append(p.errs, t.Name()+"."+sf.Name+" has no fact tag")
			fp.attr, _, _ = strings.Cut(sf.Tag.Get("json"), ",")
			p.fields = append(p.fields, fp)
			continue
		}
		parts := strings.Split(tag, ",")
		fp.attr = parts[0]
		for _, opt := range parts[1:] {
			key, val, _ := strings.Cut(opt, "=")
			switch key {
			case "identity":
				fp.use = useIdentity
			case "internal":
				fp.use = useInternal
			case "inline":
				fp.use = useInline
			case "kind":
				fp.use, fp.nested = useNested, val
			case "entries":
				fp.use = useEntries
			case "value":
				fp.value = val
			case "display":
				fp.use = useDisplay
			case "omitempty":
				fp.omitEmpty = true
			case "if":
				field, want, _ := strings.Cut(val, ":")
				j, ok := byJSON[field]
				if !ok {
					p.errs = append(p.errs, fmt.Sprintf("%s.%s: if= names no field %q", t.Name(), sf.Name, field))
					continue
				}
				fp.ifField, fp.ifValue = j, want
			default:
				p.errs = append(p.errs, fmt.Sprintf("%s.%s: unknown fact tag option %q", t.Name(), sf.Name, opt))
			}
		}
		if (fp.use == useScalar || fp.use == useDisplay) && !scalarType(sf.Type) {
			p.errs = append(p.errs, fmt.Sprintf("%s.%s: a %s is no fact value (a string, boolean, number or list of strings)", t.Name(), sf.Name, sf.Type))
		}
		if (fp.attr == "-") != (fp.use == useIdentity || fp.use == useInternal || fp.use == useNested || fp.use == useInline) {
			p.errs = append(p.errs, fmt.Sprintf("%s.%s: fact tag %q: \"-\" goes with identity, internal, kind= or inline, and only with them", t.Name(), sf.Name, tag))
		}
		p.fields = append(p.fields, fp)
	}
	for i := range p.fields {
		if p.fields[i].use != useDisplay {
			continue
		}
		for j := range p.fields {
			if j != i && p.fields[j].attr == p.fields[i].attr && p.fields[j].use == useScalar {
				p.fields[j].display = p.fields[i].index
			}
		}
	}
	return p
}

// object adds the facts of one object of kind k, held by the object parent (nested kinds).
func (fb *factBuilder) object(k *KindSpec, v reflect.Value, parent string) {
	id := k.identity(v, parent)
	o := fb.obj(k.Name, id)
	if k.nested && k.Parent == ParentTable {
		o.add("table", parent)
	}
	fb.fields(o, v, id)
}

// fields adds the facts the fields of the struct v make, for the object o (identity id).
func (fb *factBuilder) fields(o objFacts, v reflect.Value, id string) {
	for _, f := range planOf(v.Type()).fields {
		if f.ifField >= 0 && v.Field(f.ifField).String() != f.ifValue {
			continue
		}
		fv := v.Field(f.index)
		switch f.use {
		case useScalar:
			s := scalar(fv)
			switch {
			case f.omitEmpty && s == "":
			case f.display >= 0:
				o.addDisplay(f.attr, s, v.Field(f.display).String())
			default:
				o.add(f.attr, s)
			}
		case useEntries:
			entries(o, f, fv)
		case useNested:
			k, _ := kindNamed(f.nested)
			for i := range fv.Len() {
				fb.object(&k, fv.Index(i), id)
			}
		case useInline:
			if !fv.IsNil() {
				fb.fields(o, fv.Elem(), id)
			}
		}
	}
}

// scalarType reports whether a field of type t can be a fact's value (see scalar).
func scalarType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.String
	}
	return false
}

// scalar is the text of a field's value: a string as it is, a boolean or number formatted, a
// list of strings joined with ", ".
func scalar(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			var b strings.Builder
			for i := range v.Len() {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(v.Index(i).String())
			}
			return b.String()
		}
	}
	return fmt.Sprint(v.Interface())
}

// entries adds one fact per element of the list v.
func entries(o objFacts, f fieldPlan, v reflect.Value) {
	if v.Type().Elem().Kind() == reflect.String {
		for i := range v.Len() {
			e := v.Index(i).String()
			if f.value != "" {
				o.add(f.attr+":"+ident(e), f.value)
				continue
			}
			key, val, _ := strings.Cut(e, "=")
			o.add(f.attr+":"+key, val)
		}
		return
	}
	for i := range v.Len() {
		if e, ok := v.Index(i).Addr().Interface().(factEntry); ok { // a pointer: no copy
			key, val := e.factEntry()
			o.add(f.attr+":"+key, val)
		}
	}
}
