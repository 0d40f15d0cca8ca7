package fault

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

func panics(v any) (err error) {
	defer Recover(&err)
	if v != nil {
		panic(v)
	}
	return errors.New("returned")
}

func TestRecoverTurnsAPanicIntoOneLine(t *testing.T) {
	err := panics("boom")
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "boom" {
		t.Fatalf("err = %#v, want a *PanicError with the panic value", err)
	}
	msg := err.Error()
	for _, want := range []string{"internal error: boom", "fault.panics at fault/panic_test.go:", "please report"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine") {
		t.Errorf("message %q is not one line without a stack", msg)
	}
	if err := panics(nil); err == nil || err.Error() != "returned" {
		t.Errorf("without a panic, the function's own error must stay: %v", err)
	}
}

func TestRecoverInGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			defer Recover(&errs[i])
			var m map[string]int
			if i%2 == 0 {
				//lint:ignore SA5000 a runtime error (not a panic(value)) is what Recover must turn into an error
				m["x"] = i // a runtime error: assignment to a nil map
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		var pe *PanicError
		if got := errors.As(err, &pe); got != (i%2 == 0) {
			t.Errorf("goroutine %d: err = %v", i, err)
		}
		if err != nil && !strings.Contains(err.Error(), "nil map") {
			t.Errorf("goroutine %d: %q does not carry the runtime error", i, err)
		}
	}
}
