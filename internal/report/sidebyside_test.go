package report

import (
	"strings"
	"testing"
)

// TestUnifiedTextMarksWhatChangedInALongLine: under a long changed line and its replacement,
// a "~" line shows the change with a little context, not the 600 characters again.
func TestUnifiedTextMarksWhatChangedInALongLine(t *testing.T) {
	long := func(v string) string {
		return "p_workspace_id text, p_query text DEFAULT NULL::text, p_match_count integer DEFAULT 10, p_half_life_steps double precision DEFAULT " + v + ", p_dependency_saturation double precision DEFAULT 3.0, p_include_superseded boolean DEFAULT false"
	}
	got := unifiedText(long("30.0"), long("45.0"))
	want := "~… double precision DEFAULT [-30.0-]{+45.0+}, p_dependency_saturation …\n"
	if !strings.HasSuffix(got, want) || strings.Count(got, "\n~") != 1 {
		t.Errorf("unified text:\n%s\nwant it to end with %q", got, want)
	}
	// Short lines, and lines that share little, get no marker line.
	for _, pair := range [][2]string{{"WHERE a AND b", "WHERE a OR b"}, {long("1"), strings.Repeat("x", 200)}} {
		if got := unifiedText(pair[0], pair[1]); strings.Contains(got, "\n~") {
			t.Errorf("marker line for %q:\n%s", pair, got)
		}
	}
	// The html highlights the changed characters, escaped.
	l, r := highlighted("a < 1 AND b", "a < 1 OR b")
	if l != "a &lt; 1 <del>AND</del> b" || r != "a &lt; 1 <ins>OR</ins> b" {
		t.Errorf("highlighted = %q, %q", l, r)
	}
}
