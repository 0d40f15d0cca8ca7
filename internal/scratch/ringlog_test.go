package scratch

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestRingLogKeepsTheTail(t *testing.T) {
	r := newRingLog(64)
	for i := range 50 {
		fmt.Fprintf(r, "line %d\n", i)
	}
	if len(r.buf) > 64 {
		t.Errorf("kept %d bytes, want at most 64", len(r.buf))
	}
	if got := r.Tail(2); !slices.Equal(got, []string{"line 48", "line 49"}) {
		t.Errorf("Tail(2) = %q", got)
	}
	// A line cut at the front of the buffer is not returned half.
	for _, l := range r.Tail(100) {
		if !strings.HasPrefix(l, "line ") {
			t.Errorf("Tail returned a partial line %q", l)
		}
	}
	// One write larger than the buffer keeps its end; a long line is cut with a marker.
	r = newRingLog(1000)
	r.Write([]byte(strings.Repeat("z", 5000) + "\nfirst\n" + strings.Repeat("y", 500) + "\nlast\n"))
	got := r.Tail(5)
	if len(got) != 3 || got[0] != "first" || got[2] != "last" || got[1] != strings.Repeat("y", maxLogLine)+"…" {
		t.Errorf("Tail after an oversized write = %q", got)
	}
}
