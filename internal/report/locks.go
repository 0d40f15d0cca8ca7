package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// Lock is one row of a locks phase's lock table: a lock a statement of the file took on a table
// that existed before the file, or the rewrite of one, as the lock trace saw it (internal/locks).
type Lock struct {
	// Run is the run of the file that took it: "install", "run 2" (a rerun), "upgrade from
	// FILE".
	Run string `json:"run"`
	// Pos is the top-level statement's position; Statement its command tag.
	Pos       finding.Position `json:"position"`
	Statement string           `json:"statement"`
	// Relation is the table, schema-qualified.
	Relation string `json:"relation"`
	// Mode is the lock mode as SQL writes it ("SHARE ROW EXCLUSIVE"), "" for a rewrite whose
	// statement took no new lock; Blocks says what it blocks in words.
	Mode   string `json:"mode"`
	Blocks string `json:"blocks"`
	// Rewrite: the table's storage was replaced (a rewrite, a TRUNCATE).
	Rewrite bool `json:"rewrite"`
	// Duration is how long the statement ran; Held how long production would hold the lock
	// after it: the statements after it in its transaction, at fixture scale.
	Duration time.Duration `json:"-"`
	Held     time.Duration `json:"-"`
	// Rows and Bytes are the table's size; Source says whose: "production" (--table-stats),
	// "fixture" (the scratch database with the fixture loaded) or "scratch" (no fixture).
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	Source string `json:"size_source"`
	// Grade is the size's grade: small, medium, large or huge (by rows).
	Grade string `json:"grade"`
	// Accepted, when set, is the configuration entry that accepts it ("ledgercheck.yaml:80").
	Accepted string `json:"accepted,omitempty"`
}

// MarshalJSON writes the durations in microseconds (duration_us, held_us): a statement of a
// migration often runs in less than a millisecond.
func (l Lock) MarshalJSON() ([]byte, error) {
	type plain Lock
	return json.Marshal(struct {
		plain
		DurationUS int64 `json:"duration_us"`
		HeldUS     int64 `json:"held_us"`
	}{plain(l), l.Duration.Microseconds(), l.Held.Microseconds()})
}

// lockColumns are the lock table's columns in the text formats.
var lockColumns = []string{"LINE", "RUN", "STATEMENT", "RELATION", "MODE", "BLOCKS", "REWRITE", "TIME", "HELD", "ROWS"}

// lockCells are l's cells in the order of lockColumns.
func lockCells(l Lock) []string {
	rewrite := "-"
	if l.Rewrite {
		rewrite = "yes"
	}
	mode := l.Mode
	if mode == "" {
		mode = "-"
	}
	if l.Accepted != "" {
		mode += " (accepted)"
	}
	return []string{fmt.Sprint(l.Pos.Line), l.Run, l.Statement, l.Relation, mode, l.Blocks, rewrite,
		lockTime(l.Duration), lockTime(l.Held), lockSize(l)}
}

// lockTime renders a statement's duration: "<1ms" below a millisecond, else as [FormatDuration].
func lockTime(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return FormatDuration(d)
}

// lockSize is the ROWS cell: the rows, the size and whose they are ("12 (fixture, 48 kB)").
func lockSize(l Lock) string {
	if l.Source == "" {
		return "-"
	}
	s := fmt.Sprintf("%s (%s", FormatCount(l.Rows), l.Source)
	if l.Bytes > 0 {
		s += ", " + FormatBytes(l.Bytes)
	}
	if l.Grade != "" && l.Source == "production" {
		s += ", " + l.Grade
	}
	return s + ")"
}

// FormatCount writes a count as people read it: "950", "12 k", "2.1 M", "3.4 G".
func FormatCount(n int64) string {
	switch {
	case n < 10_000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return short(float64(n)/1e3) + " k"
	case n < 1_000_000_000:
		return short(float64(n)/1e6) + " M"
	}
	return short(float64(n)/1e9) + " G"
}

// short is f with one decimal below 10 ("2.1"), none from 10 ("12").
func short(f float64) string {
	if f < 10 {
		return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
	}
	return strconv.FormatFloat(math.Round(f), 'f', 0, 64)
}

// FormatBytes writes a size in PostgreSQL's units, each 1024 of the one before: "8 kB",
// "3.4 GB".
func FormatBytes(n int64) string {
	units := []string{"bytes", "kB", "MB", "GB", "TB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f, u = f/1024, u+1
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return short(f) + " " + units[u]
}

// writeLockTable writes ph's lock table, column-aligned, for the text format.
func writeLockTable(w io.Writer, p painter, locks []Lock) {
	if len(locks) == 0 {
		return
	}
	rows := [][]string{lockColumns}
	for _, l := range locks {
		rows = append(rows, lockCells(l))
	}
	widths := make([]int, len(lockColumns))
	for _, r := range rows {
		for c, cell := range r {
			widths[c] = max(widths[c], utf8.RuneCountInString(cell))
		}
	}
	for i, r := range rows {
		var b strings.Builder
		for c, cell := range r {
			b.WriteString(cell)
			if c < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[c]-utf8.RuneCountInString(cell)+2))
			}
		}
		line := strings.TrimRight(b.String(), " ")
		if i == 0 {
			line = p.paint(ansiBold, line)
		}
		fmt.Fprintln(w, line)
	}
}
