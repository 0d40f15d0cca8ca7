package report

import (
	"bytes"
	"testing"
)

// CommandFilter marks every line a GitHub runner would take for a command, whatever the line
// break (LF or CR) and however the writes split the lines, and leaves other lines alone.
func TestCommandFilter(t *testing.T) {
	var b bytes.Buffer
	f := NewCommandFilter(&b)
	for _, w := range []string{"linting x\n::warn", "ing::pwned.sql\n", "  ::error::y\rz ##[error]w\n", "last ::x"} {
		f.Write([]byte(w))
	}
	if got := b.String(); got != "linting x\n| ::warning::pwned.sql\n|   ::error::y\rz # #[error]w\n" {
		t.Errorf("before Flush: %q", got)
	}
	f.Flush()
	if got, want := b.String()[b.Len()-len("last ::x"):], "last ::x"; got != want {
		t.Errorf("Flush wrote %q, want %q", got, want)
	}
}
