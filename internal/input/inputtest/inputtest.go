// Package inputtest has test helpers for the files ledgercheck must refuse to read.
package inputtest

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// Fifo makes a named pipe called name in a temporary directory and returns its path and a
// function that reports whether anything opened it for reading. A reader that opens the pipe
// gets end-of-file at once instead of blocking forever, so a test of code that should have
// refused the pipe fails instead of hanging.
func Fifo(t testing.TB, name string) (path string, opened func() bool) {
	t.Helper()
	path = filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	var was atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		var perr error // a panic here is the test's failure to open the pipe: opened() says false
		defer fault.Recover(&perr)
		// Opening for writing blocks until a reader opens the pipe.
		if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			was.Store(true)
			w.Close()
		}
	}()
	t.Cleanup(func() {
		if was.Load() {
			<-done
			return
		}
		// Release the writer: a non-blocking reader counts as one.
		if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			<-done
			r.Close()
		}
	})
	return path, was.Load
}
