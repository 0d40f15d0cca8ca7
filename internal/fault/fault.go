// Package fault classifies errors by who has to act on them, which decides ledgercheck's exit
// code: [Input] errors (bad flags, files or configuration: exit 2) and [Env] errors (no Postgres,
// no pgvector, an unreachable server: exit 3). Findings are not errors; commands report them and
// return [ErrFindings] (exit 1).
package fault

import "errors"

// Kind is the class of an error.
type Kind int

// The kinds of error, in the order of their exit codes.
const (
	// Unknown is an error that was not classified.
	Unknown Kind = iota
	// KindInput is a usage, configuration or input error: the user must fix what they passed.
	KindInput
	// KindEnv is an environment error: something must be installed, started or granted.
	KindEnv
)

// ErrFindings is returned by a command that ran to completion and reported findings (a lint
// error, an unreviewed difference, a stale allowlist entry, a failed rerun). The report has
// already been printed.
var ErrFindings = errors.New("findings reported")

type classified struct {
	kind Kind
	err  error
}

func (c *classified) Error() string { return c.err.Error() }
func (c *classified) Unwrap() error { return c.err }

// Input marks err as a usage, configuration or input error. Input(nil) is nil.
func Input(err error) error {
	if err == nil {
		return nil
	}
	return &classified{KindInput, err}
}

// Env marks err as an environment error. Env(nil) is nil.
func Env(err error) error {
	if err == nil {
		return nil
	}
	return &classified{KindEnv, err}
}

// KindOf returns the kind of the outermost classified error in err's chain, or Unknown.
func KindOf(err error) Kind {
	var c *classified
	if errors.As(err, &c) {
		return c.kind
	}
	return Unknown
}
