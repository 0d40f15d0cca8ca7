package corpus

import (
	"fmt"
	"strings"
)

// Report renders a file's result as its golden: every finding reported, then how the labels
// fared (hit, missed, trap, extra).
func (r FileResult) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", r.Name)
	for _, f := range r.Reported {
		fmt.Fprintf(&b, "%s\n", f)
	}
	b.WriteString("--\n")
	for _, l := range r.Hits {
		fmt.Fprintf(&b, "hit     %d %s\n", l.Line, l.Rule)
	}
	for _, l := range r.Missed {
		fmt.Fprintf(&b, "missed  %d %s\n", l.Line, l.Rule)
	}
	for _, t := range r.Traps {
		fmt.Fprintf(&b, "trap    %d %s\n", t.Label.Line, t.Label.Rule)
	}
	for _, f := range r.Extra {
		if !isTrap(r, f) {
			fmt.Fprintf(&b, "extra   %d %s\n", f.Pos.Line, f.Rule)
		}
	}
	return b.String()
}
