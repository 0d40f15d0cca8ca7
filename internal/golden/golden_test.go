package golden

import "testing"

func TestLineDiff(t *testing.T) {
	got := LineDiff("a\nb\nc\nd\n", "a\nB\nc\nd\n")
	want := "- b\n+ B\n"
	if got != want {
		t.Errorf("LineDiff = %q, want %q", got, want)
	}
	if d := LineDiff("same\n", "same\n"); d != "" {
		t.Errorf("LineDiff of equal texts = %q", d)
	}
}
