package didyoumean

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"formt", "format", 1},
		{"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"résumé", "resume", 2},
		{"quite", "quiet", 1}, {"outptu", "output", 1}, {"ab", "ba", 1}, {"ca", "abc", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	flags := []string{"quiet", "format", "output", "config", "port-dim", "artifact-dim", "color"}
	for _, tc := range []struct {
		word string
		want string
	}{
		{"formt", "format"},
		{"FORMAT", "format"},
		{"format", ""}, // the word itself is not a suggestion
		{"port-dimm", "port-dim"},
		{"colour", "color"},
		{"artifact", "artifact-dim"}, // a prefix
		{"xyz", ""},
		{"po", ""}, // too short to be a prefix worth suggesting, and 2 edits from everything
		{"outptu", "output"},
		{"quite", "quiet"},
	} {
		if got := Closest(tc.word, flags); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	if got := Hint("modifies-existing-objet", []string{"not-idempotent", "modifies-existing-object"}); got != " (did you mean modifies-existing-object?)" {
		t.Errorf("Hint = %q", got)
	}
}
