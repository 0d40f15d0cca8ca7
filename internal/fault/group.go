package fault

import (
	"context"
	"errors"
	"sync"
)

// Group runs functions each in a goroutine of its own and waits for them: the one way
// ledgercheck runs N things at once. A panic of one is recovered ([Recover]) into a
// [*PanicError]; the first error (or panic) calls Cancel, when set, so that the others stop;
// [Group.Wait] returns the cause: the first error to arrive, except that an error that is only a
// cancellation ([context.Canceled]) gives way to a later one that is not (the others' errors, a
// connection cut short or a context cancelled, are consequences of the cause). The zero Group
// is ready to use.
type Group struct {
	// Cancel, when not nil, is called once on the first error.
	Cancel func()

	wg     sync.WaitGroup
	mu     sync.Mutex
	first  error
	called bool
}

// Go runs f in a goroutine of its own.
func (g *Group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		var err error
		defer func() {
			if err != nil {
				g.fail(err)
			}
			g.wg.Done()
		}()
		defer Recover(&err)
		err = f()
	}()
}

func (g *Group) fail(err error) {
	g.mu.Lock()
	if g.first == nil || errors.Is(g.first, context.Canceled) && !errors.Is(err, context.Canceled) {
		g.first = err
	}
	cancel := g.Cancel != nil && !g.called
	g.called = true
	g.mu.Unlock()
	if cancel {
		g.Cancel()
	}
}

// Wait waits for every function and returns the cause (see [Group]), nil when none failed.
func (g *Group) Wait() error {
	g.wg.Wait()
	return g.first
}

// Offer sends err on ch unless ch is full: how a goroutine that recovered a panic tells whoever
// waits on a buffered channel it may already have written to.
func Offer(ch chan<- error, err error) {
	select {
	case ch <- err:
	default:
	}
}
