package yamltext

import (
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// entries is an allowlist of n entries of five lines each after its two-line head, the i-th
// (from 0) edited by edit.
func entries(n int, edit func(i int, e string) string) string {
	var b strings.Builder
	b.WriteString("version: 2\nentries:\n")
	for i := range n {
		b.WriteString(edit(i, fmt.Sprintf("  - kind: column\n    object: public.t.c%d\n    artifact: int\n    port: bigint\n    reason: reviewed\n", i)))
	}
	return b.String()
}

// TestSyntaxErrorPositions: a syntax error is reported at the line and column of the problem,
// not at the line where yaml.v3's enclosing construct starts (one line early for a parser error).
func TestSyntaxErrorPositions(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line, col int
	}{
		// An unclosed quote at line 27 that a later one closes, where yaml.v3 says 22 (before
		// the entry's mapping) and the parser fails at 37: the string's opening quote.
		{"unclosed quote, closed by a later one", entries(8, func(i int, e string) string {
			if i == 4 {
				return strings.Replace(e, "reason: reviewed", `reason: "reviewed`, 1)
			}
			if i == 6 {
				return strings.Replace(e, "reason: reviewed", `reason: "reviewed"`, 1)
			}
			return e
		}), 27, 13},
		{"unclosed quote to the end", entries(8, func(i int, e string) string {
			if i == 4 {
				return strings.Replace(e, "reason: reviewed", `reason: 'reviewed`, 1)
			}
			return e
		}), 27, 13},
		{"flow sequence", entries(3, func(i int, e string) string {
			if i == 1 {
				return strings.Replace(e, "artifact: int", "artifact: [int, bigint", 1)
			}
			return e
		}), 10, 15},
		{"mapping value", entries(3, func(i int, e string) string {
			if i == 2 {
				return strings.Replace(e, "port: bigint", "port: big: int", 1)
			}
			return e
		}), 16, 14},
		{"indentation", entries(3, func(i int, e string) string {
			if i == 1 {
				return strings.Replace(e, "    port: bigint", "   port: bigint", 1)
			}
			return e
		}), 11, 4},
		{"tab", entries(3, func(i int, e string) string {
			if i == 2 {
				return strings.Replace(e, "    reason", "\treason", 1)
			}
			return e
		}), 17, 1},
		{"text after a quoted value", entries(3, func(i int, e string) string {
			if i == 0 {
				return strings.Replace(e, "kind: column", `kind: "column" x`, 1)
			}
			return e
		}), 3, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.src)
			err := yaml.Unmarshal(data, &struct{}{})
			if err == nil {
				t.Fatalf("no error:\n%s", tc.src)
			}
			if p := Locate(err, data); p.Line != tc.line || p.Col != tc.col {
				t.Errorf("%v\nLocate = %d:%d %s, want %d:%d\n%s", err, p.Line, p.Col, p.Msg, tc.line, tc.col, lineOf(data, tc.line))
			}
		})
	}
}

// TestTypeErrorColumns: a value of the wrong type is reported at the value.
func TestTypeErrorColumns(t *testing.T) {
	var v struct {
		Count int   `yaml:"count"`
		List  []int `yaml:"list"`
		Map   struct {
			N int `yaml:"n"`
		} `yaml:"map"`
	}
	for _, tc := range []struct {
		src       string
		line, col int
	}{
		{"count: many\n", 1, 8},
		{"list:\n  - 1\n  - two\n", 3, 5},
		{"map:\n  n:   [1]\n", 2, 8},
		{"map: x\n", 1, 6},
	} {
		err := yaml.Unmarshal([]byte(tc.src), &v)
		if err == nil {
			t.Fatalf("%q: no error", tc.src)
		}
		if p := Locate(err, []byte(tc.src)); p.Line != tc.line || p.Col != tc.col {
			t.Errorf("%q: %v: Locate = %d:%d, want %d:%d", tc.src, err, p.Line, p.Col, tc.line, tc.col)
		}
	}
}

func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		"cannot unmarshal !!str `soon` into time.Duration":                                    `invalid value "soon": want a duration such as 60s or 2m`,
		"cannot unmarshal !!str `many` into int":                                              `invalid value "many": want a whole number`,
		"cannot unmarshal !!seq into int":                                                     `invalid value (a list): want a whole number`,
		"cannot unmarshal !!str `x` into float64":                                             `invalid value "x": want a number`,
		"cannot unmarshal !!str `some` into bool":                                             `invalid value "some": want true or false`,
		"cannot unmarshal !!map into string":                                                  `invalid value (a mapping): want text`,
		"cannot unmarshal !!str `x` into []string":                                            `invalid value "x": want a list`,
		"cannot unmarshal !!str `x` into config.Variant":                                      `invalid value "x": want a mapping`,
		"cannot unmarshal !!seq into a configuration (a mapping that starts with version: 2)": `invalid value (a list): want a configuration (a mapping that starts with version: 2)`,
		"did not find expected key":                                                           "did not find expected key",
	} {
		if got := Plain(in); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
}
