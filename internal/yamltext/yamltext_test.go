package yamltext

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		in   string
		line int
	}{
		{"version: 1\nentries: []\n", 0},
		{"\ufeffversion: 1\n\tx: é\r\n", 0},
		{"version: 1\nentries: \xff\n", 2},
		{"\xff\xfeversion: 1\n", 1},
		{"a: 1\nb: 2\nc: \x00\n", 3},
		{"a: 1\n\u0085b: \u0090\n", 2},
		{"a: \xe2\x82\n", 1}, // truncated sequence
	} {
		line, what := Check([]byte(tc.in))
		if line != tc.line || (line != 0) != (what != "") {
			t.Errorf("Check(%q) = %d, %q; want line %d", tc.in, line, what, tc.line)
		}
	}
}

// TestLocate: the one reading of yaml.v3's errors gives the line of a syntax error, the line of
// a type error, and the line and column of an unknown key.
func TestLocate(t *testing.T) {
	type doc struct {
		Name  string `yaml:"name"`
		Count int    `yaml:"count"`
	}
	decode := func(src string) error {
		dec := yaml.NewDecoder(strings.NewReader(src))
		dec.KnownFields(true)
		var d doc
		return dec.Decode(&d)
	}
	for _, c := range []struct {
		src, want string
		key       string
	}{
		{"name: a\n  bad: [\n", "f.yaml:2:6: mapping values are not allowed", ""},
		{"name: a\ncount: many\n", "f.yaml:2:8: cannot unmarshal !!str `many` into int", ""},
		{"name: a\n# c\nnmae_x: b\n", "f.yaml:3:1: field nmae_x not found", "nmae_x"},
		{"name: {x: 1, count: 2}\n", "f.yaml:1:7: cannot unmarshal", ""},
	} {
		data := []byte(c.src)
		p := Locate(decode(c.src), data)
		if got := p.At("f.yaml"); !strings.HasPrefix(got, c.want) || p.UnknownKey != c.key {
			t.Errorf("%q: %q (key %q), want prefix %q (key %q)", c.src, got, p.UnknownKey, c.want, c.key)
		}
	}
	// An unterminated flow collection at the end: its bracket.
	src := "name: a\ncount: [1,\n"
	if p := Locate(yaml.Unmarshal([]byte(src), &doc{}), []byte(src)); p.Line != 2 || p.Col != 8 {
		t.Errorf("end of stream: %+v, want 2:8", p)
	}
}
