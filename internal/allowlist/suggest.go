package allowlist

import (
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"ledgercheck/diff"
	"ledgercheck/introspect"
)

// maxInline is the longest value Suggest writes as left/right; longer or multi-line values are
// pinned by digest.
const maxInline = 160

// Suggest writes a candidate allowlist for the semantic differences in diffs, one entry each,
// every reason "TODO". [Parse] rejects TODO reasons, so the file passes the gate only once a
// person has reviewed each difference and written why it is accepted.
func Suggest(w io.Writer, diffs []diff.Difference) error {
	var f File
	f.Version = Version
	for _, d := range diffs {
		if d.Class == introspect.Cosmetic {
			continue
		}
		f.Entries = append(f.Entries, EntryFor(d, "TODO"))
	}
	fmt.Fprintln(w, "# Candidate allowlist entries (ledgercheck allowlist suggest). Review each difference, replace")
	fmt.Fprintln(w, "# every TODO with the reason it is accepted, and delete the entries you do not accept.")
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&f); err != nil {
		return fmt.Errorf("writing suggestions: %w", err)
	}
	return enc.Close()
}

// EntryFor returns the entry that accepts exactly d, with the given reason: short single-line
// values are pinned as left and right, others by digest.
func EntryFor(d diff.Difference, reason string) Entry {
	e := Entry{Kind: d.Kind, Object: d.Object, Attr: d.Attr, Reason: reason}
	if inline(d.Left) && inline(d.Right) {
		l, r := d.Left, d.Right
		e.Left, e.Right = &l, &r
	} else {
		e.Digest = d.Digest()
	}
	return e
}

func inline(s string) bool { return len(s) <= maxInline && !strings.ContainsAny(s, "\n\r") }
