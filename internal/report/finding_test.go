package report

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// A finding's message and detail are bounded, with a marker that counts what was left out, so
// that a 50 MB server message is a line in a log and not 50 MB of every format.
func TestBounded(t *testing.T) {
	marker := regexp.MustCompile(`… \((\d+) more bytes\)$`)
	for _, tc := range []struct {
		name   string
		msg    string
		detail string
		cut    bool // whether the message is cut
	}{
		{"short", "a message", "a detail", false},
		{"at the limits", strings.Repeat("é", MaxMessage), strings.Repeat("d", MaxDetail), false},
		{"one over", strings.Repeat("m", MaxMessage+1), strings.Repeat("d", MaxDetail+1), true},
		{"huge", "ERROR: " + strings.Repeat("x", 50<<20), strings.Repeat("line\n", 1<<20), true},
		{"multibyte", strings.Repeat("€", 10*MaxMessage), strings.Repeat("€", MaxDetail), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Bound(finding.Finding{Rule: "r", Message: tc.msg, Detail: tc.detail})
			if n := utf8.RuneCountInString(f.Message); n > MaxMessage || !utf8.ValidString(f.Message) {
				t.Errorf("message of %d characters (valid UTF-8: %v), want at most %d", n, utf8.ValidString(f.Message), MaxMessage)
			}
			if len(f.Detail) > MaxDetail || !utf8.ValidString(f.Detail) {
				t.Errorf("detail of %d bytes (valid UTF-8: %v), want at most %d", len(f.Detail), utf8.ValidString(f.Detail), MaxDetail)
			}
			m := marker.FindStringSubmatch(f.Message)
			if !tc.cut {
				if f.Message != tc.msg || f.Detail != tc.detail {
					t.Errorf("a bounded finding was changed: %.80q", f.Message)
				}
				return
			}
			// The kept text is a prefix of the original, and the marker counts the rest exactly.
			if m == nil {
				t.Fatalf("message %.80q... has no marker", f.Message)
			}
			kept := strings.TrimSuffix(f.Message, " "+m[0])
			if n, _ := strconv.Atoi(m[1]); !strings.HasPrefix(tc.msg, kept) || len(kept)+n != len(tc.msg) {
				t.Errorf("kept %d bytes and says %s more; the message has %d", len(kept), m[1], len(tc.msg))
			}
			if d := f.Detail; len(tc.detail) > MaxDetail && !marker.MatchString(d) {
				t.Errorf("detail %.80q... has no marker", d[max(0, len(d)-80):])
			}
			if again := Bound(f); !reflect.DeepEqual(again, f) {
				t.Error("bounding a bounded finding changed it")
			}
		})
	}
}

// Finish bounds every finding of the report.
func TestFinishBoundsFindings(t *testing.T) {
	r := sample()
	r.Phases[0].Findings[0].Message = strings.Repeat("x", 1<<20)
	r.Finish()
	for _, f := range r.Findings() {
		if utf8.RuneCountInString(f.Message) > MaxMessage || len(f.Detail) > MaxDetail {
			t.Errorf("finding %s: message of %d bytes, detail of %d after Finish", f.Rule, len(f.Message), len(f.Detail))
		}
	}
}
