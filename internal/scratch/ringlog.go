package scratch

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// ringLog keeps the last part of a process's output: a server that logs without end (a migration
// raising 1 MB warnings in a loop) costs a fixed amount of memory, and a failure can still be
// explained with the lines before it.
type ringLog struct {
	mu   sync.Mutex
	buf  []byte // the kept tail; at most max bytes
	max  int
	lost int64 // bytes dropped from the front
}

func newRingLog(max int) *ringLog { return &ringLog{max: max} }

// Write keeps the last max bytes written.
func (r *ringLog) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	if len(p) >= r.max {
		r.lost += int64(len(r.buf) + len(p) - r.max)
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		return n, nil
	}
	if over := len(r.buf) + len(p) - r.max; over > 0 {
		r.lost += int64(over)
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	r.buf = append(r.buf, p...)
	return n, nil
}

// maxLogLine is the longest log line Tail returns; longer ones are cut with a marker.
const maxLogLine = 300

// Tail returns the last n non-empty lines (fewer if there are fewer), oldest first, each cut to
// maxLogLine bytes. A line cut off at the front of the buffer is left out.
func (r *ringLog) Tail(n int) []string {
	r.mu.Lock()
	b := bytes.Clone(r.buf)
	lost := r.lost
	r.mu.Unlock()
	lines := strings.Split(string(b), "\n")
	if lost > 0 && len(lines) > 0 {
		lines = lines[1:] // its start was dropped
	}
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		if len(l) > maxLogLine {
			cut := maxLogLine
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			l = l[:cut] + "…"
		}
		out = append(out, l)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// mark returns how many bytes were written so far: a position for containsSince.
func (r *ringLog) mark() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lost + int64(len(r.buf))
}

// containsSince reports whether what was written after mark (as much of it as is kept)
// contains s.
func (r *ringLog) containsSince(mark int64, s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := max(0, mark-r.lost)
	if start >= int64(len(r.buf)) {
		return false
	}
	return bytes.Contains(r.buf[start:], []byte(s))
}

// matchesSince reports whether what was written after mark (as much of it as is kept) matches re.
func (r *ringLog) matchesSince(mark int64, re *regexp.Regexp) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := max(0, mark-r.lost)
	if start >= int64(len(r.buf)) {
		return false
	}
	return re.Match(r.buf[start:])
}
