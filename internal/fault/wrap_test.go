package fault

import (
	"errors"
	"io/fs"
	"testing"
)

// TestWrapfKeepsTheCause: the message is the formatted text alone, and the cause stays in the
// chain for errors.Is, errors.As and KindOf.
func TestWrapfKeepsTheCause(t *testing.T) {
	cause := Env(fs.ErrNotExist)
	err := Wrapf(cause, "reading %s: %s", "x.sql", "gone")
	if err.Error() != "reading x.sql: gone" {
		t.Errorf("message %q", err)
	}
	if !errors.Is(err, fs.ErrNotExist) || KindOf(err) != KindEnv {
		t.Errorf("the cause is not behind the message: Is %v, kind %v", errors.Is(err, fs.ErrNotExist), KindOf(err))
	}
	if Wrapf(nil, "x") != nil {
		t.Error("Wrapf(nil) is not nil")
	}
}
