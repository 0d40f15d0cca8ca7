package nouns

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n          int
		word, want string
	}{
		{0, "row", "0 rows"},
		{1, "row", "1 row"},
		{2, "generated row", "2 generated rows"},
		{3, "policy", "3 policies"},
		{1, "policy", "1 policy"},
		{2, "key", "2 keys"},
		{2, "index", "2 indexes"},
		{2, "sidecar", "2 sidecars"},
		{2, "dimension normalization", "2 dimension normalizations"},
		{2, "match", "2 matches"},
		{2, "statistics", "2 statistics"},
	} {
		if got := Count(tc.n, tc.word); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.word, got, tc.want)
		}
	}
}
