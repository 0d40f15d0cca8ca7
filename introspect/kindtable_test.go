package introspect

import (
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// filler gives every field of a value a value of its own: strings (some needing quotes),
// booleans, numbers, two elements per list, pointers to filled structs.
type filler struct{ n int }

func (f *filler) fill(v reflect.Value) {
	f.n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("v%d=w%d", f.n, f.n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(f.n))
	case reflect.Float64:
		v.SetFloat(float64(f.n) + 0.5)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			f.fill(v.Field(i))
		}
	}
}

// modelProblems checks the struct type t of kind k (nil for a struct inlined in another): every
// field has a fact tag, and each field tagged as a fact makes one (a fact of its attribute, or
// facts of its nested kind, with a value of its own) when the other fields are filled in and
// its condition holds; each identity field changes the identity.
func modelProblems(k *KindSpec, t reflect.Type) []string {
	var out []string
	p := readPlan(t)
	out = append(out, p.errs...)
	for _, f := range p.fields {
		v := reflect.New(t).Elem()
		(&filler{}).fill(v)
		if f.ifField >= 0 {
			v.Field(f.ifField).SetString(f.ifValue)
		}
		var fb factBuilder
		o := fb.obj("k", "o")
		id := ""
		if k != nil {
			id = k.identity(v, "public.t")
		}
		fb.fields(o, v, id)
		made := func(match func(Fact) bool) bool { return slices.ContainsFunc(fb.facts, match) }
		what := t.Name() + "." + f.name
		switch f.use {
		case useScalar:
			want := scalar(v.Field(f.index))
			if !made(func(x Fact) bool { return x.Kind == "k" && x.Attr == f.attr && x.Value == want }) {
				out = append(out, what+" is no fact "+f.attr)
			}
		case useEntries:
			if !made(func(x Fact) bool { return x.Kind == "k" && strings.HasPrefix(x.Attr, f.attr+":") && x.Value != "" }) {
				out = append(out, what+" makes no fact "+f.attr+":...")
			}
		case useDisplay:
			if !made(func(x Fact) bool { return x.Attr == f.attr && x.Display == v.Field(f.index).String() }) {
				out = append(out, what+" is not the display of "+f.attr)
			}
		case useNested:
			if _, ok := kindNamed(f.nested); !ok {
				out = append(out, what+" holds objects of "+f.nested+", no kind of the table")
			} else if !made(func(x Fact) bool { return x.Kind == f.nested }) {
				out = append(out, what+" makes no fact of its kind "+f.nested)
			}
		case useInline:
			out = append(out, modelProblems(nil, t.Field(f.index).Type.Elem())...)
		case useIdentity:
			if k == nil {
				out = append(out, what+" is tagged identity in a struct with no identity")
				continue
			}
			v.Field(f.index).SetString("changed")
			if k.identity(v, "public.t") == id {
				out = append(out, what+" is tagged identity but the identity does not read it")
			}
		}
	}
	return out
}

// Every field of every kind's struct is a fact, part of the identity, or a kind of its own:
// an attribute added to a struct and its query without a fact tag (or with one that makes no
// fact) fails here, instead of being left out of parity with no error.
func TestEveryModelFieldIsAFact(t *testing.T) {
	for _, k := range Kinds() {
		for _, p := range modelProblems(&k, k.model) {
			t.Errorf("kind %s: %s", k.Name, p)
		}
	}
}

// The check above catches what it is for: a field with no tag, and a tag that makes no fact.
func TestModelProblemsCatchesDroppedAttributes(t *testing.T) {
	type dropped struct {
		Name    string `json:"name" fact:"-,identity"`
		Owner   string `json:"owner" fact:"owner"`
		Forgot  string `json:"forgot"`
		Wrong   string `json:"wrong" fact:"wrong,if=nosuch:x"`
		Unnamed string `json:"unnamed" fact:"-"`
		Nested  Grant  `json:"nested" fact:"nested"`
	}
	k := &KindSpec{Name: "dropped", identity: func(v reflect.Value, _ string) string { return v.Field(0).String() }}
	got := strings.Join(modelProblems(k, reflect.TypeFor[dropped]()), "\n")
	for _, want := range []string{"dropped.Forgot has no fact tag", `if= names no field "nosuch"`, `dropped.Unnamed: fact tag "-"`, "dropped.Nested: a introspect.Grant is no fact value"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems do not say %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Owner") || strings.Contains(got, "Name") {
		t.Errorf("problems name a field that is a fact:\n%s", got)
	}
}

// Every list of a snapshot is a kind's, and every query file is a kind's: a kind added to the
// snapshot or the queries without its row in the table fails here.
func TestEverySnapshotListAndQueryIsAKind(t *testing.T) {
	var s Snapshot
	lists := map[uintptr]string{}
	for _, k := range Kinds() {
		if k.list != nil {
			lists[reflect.ValueOf(k.list(&s)).Pointer()] = k.Name
		}
	}
	v := reflect.ValueOf(&s).Elem()
	for i := range v.NumField() {
		if _, ok := lists[v.Field(i).Addr().Pointer()]; !ok {
			t.Errorf("Snapshot.%s is the list of no kind of the table", v.Type().Field(i).Name)
		}
	}
	files, err := fs.Glob(queryFS, "queries/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "queries/"), ".sql")
		if !slices.Contains(queryNames, name) {
			t.Errorf("query %s is read by no kind of the table", name)
		}
	}
	if len(files) != len(queryNames) {
		t.Errorf("%d query files, %d queries named by the kinds: %v", len(files), len(queryNames), queryNames)
	}
}

// Deployed takes in, with a table a reference created, every object of a kind that belongs to
// a table, and with a schema a reference created, every object of a kind whose identity starts
// with its schema: a kind the scope does not know is left out of a deployment's drift.
func TestDeployedScopesEveryKind(t *testing.T) {
	for _, k := range Kinds() {
		if k.Parent == NoParent && !k.InSchema {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			object, facts := "side.x", []Fact{}
			switch k.Parent {
			case ParentDotted:
				object = "side.t.x"
			case ParentOn:
				object = "x on side.t"
			case ParentTable:
				facts = append(facts, Fact{Kind: k.Name, Object: object, Attr: "table", Value: "side.t"})
			case ParentOwnedBy:
				facts = append(facts, Fact{Kind: k.Name, Object: object, Attr: "owned_by", Value: "side.t.id"})
			}
			facts = append(facts, Fact{Kind: k.Name, Object: object, Attr: "comment", Value: "deployed"})
			ref := ObjectRef{k.Name, object}
			owners := map[ObjectRef]bool{{KindTable, "side.t"}: true, {KindView, "side.t"}: true, {KindType, "side.t"}: true}
			if k.Parent != NoParent && !attached(ref, facts, owners, nil) {
				t.Errorf("%s is not in scope with the relation or type it belongs to", ref)
			}
			if k.InSchema && !attached(ref, facts, nil, map[string]bool{"side": true}) {
				t.Errorf("%s is not in scope with its schema", ref)
			}
			if attached(ref, facts, map[ObjectRef]bool{{KindTable, "other.t"}: true}, map[string]bool{"other": true}) {
				t.Errorf("%s is in scope with another table and schema", ref)
			}
		})
	}
}
