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

// containsSince sees only what was written after its mark, also once the buffer has dropped
// its front: a server started again does not pass for ready on its previous start's line.
func TestRingLogContainsSince(t *testing.T) {
	r := newRingLog(64)
	fmt.Fprintf(r, "%s\n", readyLine[:40])
	fmt.Fprintf(r, "ready\n")
	m := r.mark()
	if r.containsSince(m, "ready") {
		t.Error("a line written before the mark counts")
	}
	fmt.Fprintf(r, "not yet\n")
	if r.containsSince(m, "ready") {
		t.Error("found a line never written after the mark")
	}
	fmt.Fprintf(r, "ready now\n")
	if !r.containsSince(m, "ready") {
		t.Error("the line written after the mark is not found")
	}
	for i := range 20 { // the mark's position is dropped from the buffer
		fmt.Fprintf(r, "filler %d\n", i)
	}
	m = r.mark()
	if r.containsSince(m, "filler") {
		t.Error("after the buffer wrapped, a line before the mark counts")
	}
	fmt.Fprintf(r, "ready at last\n")
	if !r.containsSince(m, "at last") || !r.containsSince(0, "at last") {
		t.Error("after the buffer wrapped, a line written since is not found")
	}
}
