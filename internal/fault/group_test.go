package fault

import (
	"context"
	"errors"
	"testing"
)

// TestGroupKeepsTheCauseAndCancelsTheRest: the first failure cancels the group's context, the
// others' cancellation errors do not replace it, and Wait returns after every function ended.
func TestGroupKeepsTheCauseAndCancelsTheRest(t *testing.T) {
	cause := errors.New("the cause")
	g, ctx := NewGroup(context.Background())
	ended := make(chan struct{}, 3)
	for range 2 {
		g.Go(func() error {
			defer func() { ended <- struct{}{} }()
			<-ctx.Done() // stops only because the group cancels it
			return ctx.Err()
		})
	}
	g.Go(func() error { ended <- struct{}{}; return cause })
	if err := g.Wait(); err != cause {
		t.Fatalf("Wait = %v, want the cause", err)
	}
	if len(ended) != 3 {
		t.Errorf("Wait returned before every function ended (%d of 3)", len(ended))
	}
}

// TestGroupRecoversPanics: a panic in a function is the group's error, as a *PanicError, and
// cancels the others; the process goes on.
func TestGroupRecoversPanics(t *testing.T) {
	g, ctx := NewGroup(context.Background())
	g.Go(func() error { <-ctx.Done(); return ctx.Err() })
	g.Go(func() error { panic("a bug in one of the functions") })
	err := g.Wait()
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Wait = %v, want a *PanicError", err)
	}
}

// TestZeroGroup: the zero Group runs functions and returns nil when none fails; Cancel is
// called once however many fail.
func TestZeroGroup(t *testing.T) {
	var g Group
	n := 0
	for range 3 {
		g.Go(func() error { return nil })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	g2 := Group{Cancel: func() { n++ }}
	for range 3 {
		g2.Go(func() error { return errors.New("x") })
	}
	if err := g2.Wait(); err == nil || n != 1 {
		t.Errorf("err %v, Cancel called %d times, want an error and 1", err, n)
	}
}

// TestOfferNeverBlocks: a recovered panic reaches a waiter with room on the channel, and a
// goroutine whose channel is already full goes on instead of blocking forever.
func TestOfferNeverBlocks(t *testing.T) {
	ch := make(chan error, 1)
	first, second := errors.New("first"), errors.New("second")
	Offer(ch, first)
	Offer(ch, second) // full: dropped, not blocked
	if got := <-ch; got != first {
		t.Errorf("received %v, want the first", got)
	}
}
