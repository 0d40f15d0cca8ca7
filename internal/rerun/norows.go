package rerun

import (
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/fill"
)

// overNoRow reports whether a rerun that found nothing ran over no row at all because the
// generator's rows were refused (no fixture, every table it planned left empty): it compared
// the catalog alone, and says so (a skip, naming what stopped the rows) rather than passing.
func overNoRow(o Options, rr rerunOutcome) bool {
	return o.Fixture == nil && o.Times > 1 && rr.installed && rr.failedAt == 0 && len(rr.findings) == 0 &&
		rr.rows == 0 && rr.filled != nil && rr.filled.Rows() == 0 && len(rr.filled.Skipped) > 0
}

// refusedWhy is why the generated rows of each table were refused: "public.notes: null value in
// column "owner" of relation "notes" violates not-null constraint".
func refusedWhy(filled *fill.Result) string {
	var out []string
	for _, s := range filled.Skipped {
		out = append(out, s.Table+": "+s.Reason)
	}
	return strings.Join(out, "; ")
}
