package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/nouns"
)

// A phase whose findings another phase reports (PhaseResult.Folded) keeps its status (the audit
// or the rerun did fail) while its findings are shown once, in the other phase: each format's
// count says where they are, so that a "fail" never stands over a bare 0 or "No findings.".

// foldedSuffix is what a count adds for the phase's folded findings: " (+1 in lint artifact)",
// or "" when none are folded.
func foldedSuffix(ph *PhaseResult) string {
	if ph.Folded == 0 {
		return ""
	}
	return fmt.Sprintf(" (+%d in %s)", ph.Folded, ph.FoldedInto)
}

// noFindingsText is what the html shows for a phase without findings of its own: "No
// findings.", or where its findings are reported.
func noFindingsText(ph *PhaseResult) string {
	if ph.Folded == 0 {
		return "No findings."
	}
	return fmt.Sprintf("No findings of its own: its %s reported once, in %s.", nouns.Count(ph.Folded, "finding"), ph.FoldedInto)
}

// ProgressLine is the line a run prints on stderr when the phase is done, in the terms of the
// report's table (its status, the FINDINGS cell and the TIME cell), so the two never disagree:
// "rerun artifact: skip", "lint artifact: fail, 2 findings (1 errors) in 12ms".
func ProgressLine(ph *PhaseResult) string {
	st := phaseStatus(ph)
	if st == StatusSkip && len(ph.Findings) == 0 {
		return fmt.Sprintf("%s: %s", ph.Name, st)
	}
	n := len(ph.Findings)
	count := nouns.Count(n, "finding") + strings.TrimPrefix(findingsCell(ph), strconv.Itoa(n))
	return fmt.Sprintf("%s: %s, %s in %s", ph.Name, st, count, phaseTime(ph))
}
