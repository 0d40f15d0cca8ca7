package yamltext

import "testing"

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
