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

// TestUpdateCommand: the command a golden mismatch suggests runs this package's tests (go test
// ./... -update fails in packages whose tests do not import golden), the failing test only.
func TestUpdateCommand(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		if got, want := UpdateCommand(t), "go test ./internal/golden -run '^TestUpdateCommand$' -update"; got != want {
			t.Errorf("UpdateCommand = %q, want %q", got, want)
		}
	})
}
