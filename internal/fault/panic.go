package fault

import (
	"fmt"
	"runtime"
	"strings"
)

// PanicError is a panic recovered by [Recover]: a bug in ledgercheck, reported as one line
// (exit 3) instead of a Go stack trace, after the deferred cleanups of the goroutine that
// panicked (and of the command) have run.
type PanicError struct {
	// Value is what was passed to panic.
	Value any
	// Where is the function and file:line that panicked, when known.
	Where string
}

func (e *PanicError) Error() string {
	s := fmt.Sprintf("internal error: %v", e.Value)
	if e.Where != "" {
		s += " (in " + e.Where + ")"
	}
	return s + "; please report it with the command you ran"
}

// Recover, deferred directly (defer fault.Recover(&err)), turns a panic of the calling goroutine
// into a [*PanicError] stored in *errp. It must be deferred in every goroutine ledgercheck
// starts (or the goroutine be a [Group]'s): a panic that reaches the top of a goroutine ends the
// process without any cleanup. TestEveryGoroutineDefersRecover holds the module to it.
func Recover(errp *error) {
	if r := recover(); r != nil {
		*errp = &PanicError{Value: r, Where: panicSite()}
	}
}

// panicSite returns the first frame of the panicking goroutine's stack below the runtime's
// panic machinery: where the panic happened.
func panicSite() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		fr, more := frames.Next()
		if fr.Function != "" && !strings.HasPrefix(fr.Function, "runtime.") && !strings.HasSuffix(fr.Function, "fault.Recover") {
			return fmt.Sprintf("%s at %s:%d", shortFunc(fr.Function), shortFile(fr.File), fr.Line)
		}
		if !more {
			return ""
		}
	}
}

func shortFunc(f string) string {
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		return f[i+1:]
	}
	return f
}

func shortFile(f string) string {
	parts := strings.Split(f, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}
