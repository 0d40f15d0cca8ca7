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
