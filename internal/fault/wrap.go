package fault

import "fmt"

// Wrapf returns an error whose message is the formatted text, with cause behind it: errors.Is
// and errors.As see cause (a server's *pgconn.PgError and its SQLSTATE, a classified kind),
// while the text renders cause its own way (one line, the server's fields), which %w would not
// allow. Wrapf(nil, ...) is nil.
func Wrapf(cause error, format string, args ...any) error {
	if cause == nil {
		return nil
	}
	return &wrapped{msg: fmt.Sprintf(format, args...), cause: cause}
}

// wrapped is a message of its own in front of the error that caused it.
type wrapped struct {
	msg   string
	cause error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.cause }
