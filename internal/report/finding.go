package report

import (
	"fmt"
	"unicode/utf8"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// diffText returns the finding's detail, or, when it has none and carries the two sides of a
// textual difference, a unified diff of them.
func diffText(f finding.Finding) string {
	if f.Detail == "" && (f.From != "" || f.To != "") {
		return unifiedText(f.From, f.To)
	}
	return f.Detail
}

// A finding is a line in a log, not a carrier of data: a server error message can be megabytes
// (RAISE EXCEPTION '%', repeat('x', 50000000)), and SQL quoted from a 4 MiB file could be too.
// [Report.Finish] bounds every finding of a report with [Bound].
const (
	// MaxMessage is the most characters (Unicode code points) of a message: a message says what
	// is wrong and where in one line (a long function identity is shortened to its argument
	// count, finding.ShortIdentity); the detail and `ledgercheck explain` say the rest.
	MaxMessage = 300
	// MaxDetail is the most bytes of a detail: a diff of a few hundred lines.
	MaxDetail = 8 << 10
)

// Bound returns f with its Message cut to [MaxMessage] characters and its Detail to
// [MaxDetail] bytes, each with a marker saying how many bytes were left out. A bounded finding
// is returned unchanged.
func Bound(f finding.Finding) finding.Finding {
	f.Message = Clip(f.Message, MaxMessage)
	f.Detail = clip(f.Detail, MaxDetail, false, "\n… (%d more bytes)")
	return f
}

// Clip cuts s to at most limit characters (Unicode code points), the marker
// " … (N more bytes)" included. A message of at most limit characters is returned unchanged.
func Clip(s string, limit int) string { return clip(s, limit, true, " … (%d more bytes)") }

// clip cuts s to at most limit characters (runes) or bytes, on a character boundary, the marker
// (a format of the number of bytes left out) included.
func clip(s string, limit int, runes bool, marker string) string {
	if len(s) <= limit || runes && utf8.RuneCountInString(s) <= limit {
		return s
	}
	// The marker is longest for the most bytes left out, and has no more runes than bytes.
	keep := max(limit-len(fmt.Sprintf(marker, len(s))), 0)
	cut := keep
	if runes {
		cut = 0
		for n := 0; n < keep; n++ {
			_, w := utf8.DecodeRuneInString(s[cut:])
			cut += w
		}
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(marker, len(s)-cut)
}
