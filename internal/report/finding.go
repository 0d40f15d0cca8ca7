package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"ledgercheck/internal/pgsql"
)

// Severity orders findings; only errors fail the gate unless configured otherwise.
type Severity string

// The severities.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// Phase names the part of the gate that produced a finding.
type Phase string

// The phases of the gate.
const (
	PhaseLint    Phase = "lint"
	PhaseInstall Phase = "install"
	PhaseParity  Phase = "parity"
	PhaseProbe   Phase = "probe"
	PhaseRerun   Phase = "rerun"
	PhaseAllow   Phase = "allowlist"
)

// Finding is one thing the gate reports: a rule broken at a position, a difference between two
// installs, a failed rerun. It is data; rendering is the formats' job.
type Finding struct {
	Phase    Phase    `json:"phase"`
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Pos is where the finding points in the user's file; zero when it has no position
	// (a catalog difference, for example).
	Pos     pgsql.Position `json:"position,omitzero"`
	Message string         `json:"message"`
	// Object is the database object concerned, schema-qualified (e.g. "table public.thoughts").
	Object string `json:"object,omitempty"`
	// Detail is optional extra text: a unified diff, the server's error detail.
	Detail string `json:"detail,omitempty"`
	// Left and Right are the two sides of a textual difference (a function body, a view
	// definition), when the finding is one; the html format shows them side by side.
	Left  string `json:"left,omitempty"`
	Right string `json:"right,omitempty"`
}

// String renders the finding as one line: file:line:col: severity: message [rule].
func (f Finding) String() string {
	where := ""
	if f.Pos.Line > 0 {
		where = f.Pos.String() + ": "
	}
	return fmt.Sprintf("%s%s: %s%s [%s]", where, f.Severity, f.Message, f.objectSuffix(), f.Rule)
}

// DiffText returns the finding's detail, or, when it has none and carries the two sides of a
// textual difference, a unified diff of them.
func (f Finding) DiffText() string {
	if f.Detail == "" && (f.Left != "" || f.Right != "") {
		return unifiedText(f.Left, f.Right)
	}
	return f.Detail
}

// objectSuffix is " (object)" to follow the message, or "" when there is no object or the
// message already names it.
func (f Finding) objectSuffix() string {
	if f.Object == "" || strings.Contains(f.Message, f.Object) {
		return ""
	}
	return " (" + f.Object + ")"
}

// A finding is a line in a log, not a carrier of data: a server error message can be megabytes
// (RAISE EXCEPTION '%', repeat('x', 50000000)), and SQL quoted from a 4 MiB file could be too.
// [Report.Finish] bounds every finding of a report with [Finding.Bounded].
const (
	// MaxMessage is the most characters (Unicode code points) of a message: a long function
	// identity and the server's hint fit.
	MaxMessage = 500
	// MaxDetail is the most bytes of a detail: a diff of a few hundred lines.
	MaxDetail = 8 << 10
)

// Bounded returns f with its Message cut to [MaxMessage] characters and its Detail to
// [MaxDetail] bytes, each with a marker saying how many bytes were left out. A bounded finding
// is returned unchanged.
func (f Finding) Bounded() Finding {
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
