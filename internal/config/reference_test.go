package config

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestConfigurationReferenceNamesEveryKey: docs/reference/configuration.md has a row for every
// key a configuration of the current version may hold (`ports[].allowlist`, `lint.severity`,
// ...), so that a new key cannot ship undocumented.
func TestConfigurationReferenceNamesEveryKey(t *testing.T) {
	doc, err := os.ReadFile("../../docs/reference/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	keys := keyPaths(reflect.TypeFor[Config](), "")
	// A repository's sidecars (version 3): each key of an entry, by its name.
	st := reflect.TypeFor[sidecarV3]()
	for i := range st.NumField() {
		tag := strings.Split(st.Field(i).Tag.Get("yaml"), ",")
		if len(tag) > 1 && tag[1] == "inline" {
			for _, k := range keyPaths(st.Field(i).Type, "") {
				keys = append(keys, "sidecars[]."+k)
			}
			continue
		}
		keys = append(keys, "sidecars[]."+tag[0])
	}
	if len(keys) < 30 {
		t.Fatalf("found %d keys: %v", len(keys), keys)
	}
	for _, k := range keys {
		if !strings.Contains(string(doc), "| `"+k+"` |") {
			t.Errorf("docs/reference/configuration.md has no row for `%s`", k)
		}
	}
}

// keyPaths returns the dotted paths of every leaf key of t's YAML form ("[]" after a list of
// mappings).
func keyPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")
		if tag[0] == "-" || !f.IsExported() {
			continue
		}
		ft := f.Type
		if len(tag) > 1 && tag[1] == "inline" {
			out = append(out, keyPaths(ft, prefix)...)
			continue
		}
		name := prefix + tag[0]
		switch {
		case ft.Kind() == reflect.Struct && ft.NumField() > 0 && !strings.HasPrefix(ft.PkgPath(), "time"):
			out = append(out, keyPaths(ft, name+".")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, keyPaths(ft.Elem(), name+"[].")...)
		default:
			out = append(out, name)
		}
	}
	return out
}
