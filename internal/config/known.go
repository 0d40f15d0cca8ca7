package config

import (
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// decodeKnown decodes the file data, whose parse is doc, into v as [strictDecode] does, without
// parsing it again: when every key of doc is a key of v's types, it decodes doc itself, the same
// tree strictDecode's decoder builds. Anything else (an unknown key, an alias or merge key, a
// value that does not decode) goes to strictDecode, whose error is the one to report.
func decodeKnown(data []byte, doc *yaml.Node, v any) error {
	if knownKeys(doc, reflect.TypeOf(v)) {
		if err := doc.Decode(v); err == nil {
			return nil
		}
	}
	return strictDecode(data, v)
}

var (
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
	// obsoleteUnmarshaler is yaml.v2's UnmarshalYAML, which yaml.v3 still calls.
	obsoleteUnmarshaler = reflect.TypeFor[interface {
		UnmarshalYAML(unmarshal func(any) error) error
	}]()
)

// knownKeys reports whether yaml.v3, decoding n into a value of type t with known fields, finds
// no unknown key: every key of a mapping decoded into a struct is one of its fields' (inline
// structs' included). False as well for what it does not follow: aliases, merge keys,
// non-scalar keys, inline maps and types with their own UnmarshalYAML.
func knownKeys(n *yaml.Node, t reflect.Type) bool {
	if n.Kind == yaml.AliasNode {
		return false
	}
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			if !knownKeys(c, t) {
				return false
			}
		}
		return true
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if pt := reflect.PointerTo(t); pt.Implements(unmarshalerType) || pt.Implements(obsoleteUnmarshaler) {
		return false
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return noAliases(n) // a scalar or a list into a struct: decoding fails, or is null
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" || k.Value == "<<" {
				return false
			}
			ft, ok := yamlField(t, k.Value)
			if !ok || !knownKeys(val, ft) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return noAliases(n)
		}
		for _, c := range n.Content {
			if !knownKeys(c, t.Elem()) {
				return false
			}
		}
		return true
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return noAliases(n)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" || k.Value == "<<" || !knownKeys(val, t.Elem()) {
				return false
			}
		}
		return true
	}
	return noAliases(n) // a scalar, or an interface, which takes any mapping
}

// noAliases reports whether n holds no alias and no merge key.
func noAliases(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Kind == yaml.ScalarNode && (n.Tag == "!!merge" || n.Value == "<<") {
		return false
	}
	for _, c := range n.Content {
		if !noAliases(c) {
			return false
		}
	}
	return true
}

// yamlField returns the type of the field of struct t that yaml.v3 decodes key into, looking
// into inline structs as yaml.v3 does (its getStructInfo): the key is the yaml tag's name, or
// the field's name in lower case; "-" and unexported fields are not keys. An inline map, which
// takes every key, reports false.
func yamlField(t reflect.Type, key string) (reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.PkgPath != "" && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "" && !strings.Contains(string(f.Tag), ":") {
			tag = string(f.Tag)
		}
		if tag == "-" {
			continue
		}
		name, flags, _ := strings.Cut(tag, ",")
		if inline := strings.Contains(","+flags+",", ",inline,"); inline {
			ft := f.Type
			if ft.Kind() != reflect.Struct {
				return nil, false
			}
			if t, ok := yamlField(ft, key); ok {
				return t, true
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if name == key {
			return f.Type, true
		}
	}
	return nil, false
}

// keyNames are the yaml keys of the types of v (a pointer to a configuration), their fields'
// types included: the candidates of a misspelt key's suggestion.
func keyNames(v ...any) []string {
	seen := map[reflect.Type]bool{}
	var names []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, flags, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if f.PkgPath != "" && !f.Anonymous || name == "-" {
				continue
			}
			if name != "" && !strings.Contains(flags, "inline") {
				names = append(names, name)
			}
			walk(f.Type)
		}
	}
	for _, x := range v {
		walk(reflect.TypeOf(x))
	}
	return names
}
