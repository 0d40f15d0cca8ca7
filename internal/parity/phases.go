package parity

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgercheck/ledgercheck/diff"
	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// Summary counts what a report holds, each count for the phase that shows it: the catalog
// differences for "parity PORT" (whose findings are those differences), the probes for "probes
// PORT", the entries for "allowlist PORT". A note's counts are the findings its phase lists.
type Summary struct {
	// Differences are the catalog differences: Allowlisted, Cosmetic, Unreviewed and Changed
	// (since review) add up to it.
	Differences, Allowlisted, Unreviewed, Cosmetic, Changed int
	DimensionSites                                          int
	// Probes are the probes compared, ProbesDiffering those whose rows differ: ProbesAllowlisted,
	// ProbesUnreviewed and ProbesChanged add up to it.
	Probes, ProbesDiffering                            int
	ProbesAllowlisted, ProbesUnreviewed, ProbesChanged int
	// Accepted are the differences the allowlist accepts, catalog and probe; ChangedEntries and
	// Stale its entries changed since review and stale.
	Accepted, ChangedEntries, Stale int
}

// Summary counts the report.
func (r *Report) Summary() Summary {
	s := Summary{DimensionSites: len(r.Sites), Probes: len(r.Probes), Accepted: len(r.Outcome.Accepted),
		ChangedEntries: len(r.Outcome.Changed), Stale: len(r.Outcome.Stale)}
	// count adds one difference to the catalog's count or to the probes'.
	count := func(d diff.Difference, catalog, probe *int) {
		if d.Kind == kindProbe {
			*probe++
		} else {
			*catalog++
		}
	}
	var probeDiffs int
	for _, d := range r.Differences {
		count(d, &s.Differences, &probeDiffs)
	}
	for _, m := range r.Outcome.Accepted {
		count(m.Difference, &s.Allowlisted, &s.ProbesAllowlisted)
	}
	for _, d := range r.Outcome.Unreviewed {
		count(d, &s.Unreviewed, &s.ProbesUnreviewed)
	}
	for _, d := range r.Outcome.Cosmetic {
		count(d, &s.Cosmetic, new(int))
	}
	for _, c := range r.Outcome.Changed {
		for _, d := range c.Differences {
			count(d, &s.Changed, &s.ProbesChanged)
		}
	}
	for _, p := range r.Probes {
		if !p.Equal {
			s.ProbesDiffering++
		}
	}
	return s
}

// Phases returns the report as phases of the gate's report (internal/report renders them in
// every format): "parity PORT" (the catalog differences: each unreviewed one an error, each
// cosmetic one an info; notes with the counts and the dimension normalizations), "probes PORT"
// (each probe whose rows differ) and "allowlist PORT" (each stale entry). artifact and port
// name the two variants in the notes and the phase names, e.g. "artifact" and "production-1024".
func (r *Report) Phases(artifact, port string) []report.PhaseResult {
	sum := r.Summary()
	par := report.PhaseResult{Phase: finding.PhaseParity, Name: "parity " + port, File: r.portFile, Duration: r.Timings.Total,
		Counts: map[string]int{"differences": sum.Differences, "allowlisted": sum.Allowlisted, "unreviewed": sum.Unreviewed,
			"cosmetic": sum.Cosmetic, "normalized": sum.DimensionSites},
		Notes: []string{fmt.Sprintf("%d differences between the %s %s (%d) and the %s %s (%d): %d allowlisted, %d cosmetic, %d unreviewed",
			sum.Differences, calledArtifact(artifact), r.Artifact.File, r.Artifact.Dim, called(port), r.Port.File, r.Port.Dim, sum.Allowlisted, sum.Cosmetic, sum.Unreviewed)}}
	if sum.Changed > 0 {
		par.Notes[0] += fmt.Sprintf(", %d changed since review (see the allowlist phase)", sum.Changed)
	}
	par.Notes = append(par.Notes, r.Notes...)
	if len(r.Sites) > 0 {
		var names []string
		for _, st := range r.Sites {
			names = append(names, st.String()+sitePositions(st))
		}
		par.Notes = append(par.Notes, fmt.Sprintf("%s (vector(%d) in the %s is vector(%d) in the %s): %s",
			nouns.Count(len(r.Sites), "dimension normalization"), r.Artifact.Dim, calledArtifact(artifact), r.Port.Dim, called(port), strings.Join(names, "; ")))
	}
	probes := report.PhaseResult{Phase: finding.PhaseProbe, Name: "probes " + port, File: r.portFile,
		Counts: map[string]int{"probes": sum.Probes, "differing": sum.ProbesDiffering},
		Notes:  []string{probesNote(sum)}}
	probes.Notes = append(probes.Notes, r.ProbesNotes...)
	if r.ProbesSkipped != "" {
		probes.Status, probes.Notes = report.StatusSkip, []string{r.ProbesSkipped}
	}
	for _, p := range r.Probes {
		state := "same rows"
		if !p.Equal {
			state = "DIFFERENT"
		}
		probes.Notes = append(probes.Notes, fmt.Sprintf("%s: %s %s, %s %s: %s", p.Name, artifact, rowCount(p.Artifact), port, rowCount(p.Port), state))
	}
	byCause := map[string][]string{}
	var causes []string
	for _, p := range r.Probes {
		if c := strings.Join(r.ProbeCauses[p.Name], "; "); c != "" {
			if byCause[c] == nil {
				causes = append(causes, c)
			}
			byCause[c] = append(byCause[c], p.Name)
		}
	}
	for _, c := range causes {
		probes.Notes = append(probes.Notes, fmt.Sprintf("%s: likely caused by %s (the differences of what they read)", strings.Join(byCause[c], ", "), c))
	}
	al := report.PhaseResult{Phase: finding.PhaseAllow, Name: "allowlist " + port, File: r.Allowlist, Counts: map[string]int{"stale": sum.Stale, "changed": sum.ChangedEntries}}
	if r.Allowlist == "" {
		al.Status = report.StatusSkip
		al.Notes = []string{"not run: the port has no allowlist, so every semantic difference is a finding"}
	} else {
		al.Notes = []string{fmt.Sprintf("%s: %d differences accepted, %d changed since review, %d stale entries", r.Allowlist, sum.Accepted, sum.ChangedEntries, sum.Stale)}
	}
	for _, m := range r.Outcome.Accepted {
		al.Notes = append(al.Notes, fmt.Sprintf("%s:%d accepts %s", r.Allowlist, m.Entries[0], strings.TrimSpace(strings.SplitN(m.Difference.ID, " #", 2)[0])))
	}
	for _, f := range r.Findings() {
		switch f.Phase {
		case finding.PhaseProbe:
			probes.Findings = append(probes.Findings, f)
		case finding.PhaseAllow:
			al.Findings = append(al.Findings, f)
		default:
			par.Findings = append(par.Findings, f)
		}
	}
	return []report.PhaseResult{par, probes, al}
}

// probesNote counts the probes, and, when some of those that differ are not findings of the
// probes phase (the allowlist accepts them, or they changed since review), how many are.
func probesNote(sum Summary) string {
	note := fmt.Sprintf("%d probes on the fixture, %d return different rows", sum.Probes, sum.ProbesDiffering)
	if sum.ProbesUnreviewed != sum.ProbesDiffering {
		note += fmt.Sprintf(": %d allowlisted, %d unreviewed", sum.ProbesAllowlisted, sum.ProbesUnreviewed)
		if sum.ProbesChanged > 0 {
			note += fmt.Sprintf(", %d changed since review (see the allowlist phase)", sum.ProbesChanged)
		}
	}
	return note
}

// called is how notes call a variant named name: "artifact", or "port NAME" for a port with a name
// of its own ("port" alone for a port named so).
func called(name string) string {
	if name == "artifact" || name == "port" {
		return name
	}
	return "port " + name
}

// calledArtifact is how notes call the artifact named name: "artifact", or "artifact NAME" for
// one named after its sidecar (a repository's run).
func calledArtifact(name string) string {
	if name == "artifact" {
		return name
	}
	return "artifact " + name
}

func sitePositions(s diff.Site) string {
	var parts []string
	if s.ArtifactPos != nil {
		parts = append(parts, s.ArtifactPos.String())
	}
	if s.PortPos != nil {
		parts = append(parts, s.PortPos.String())
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, ", ") + "]"
}

// ToSuggest returns the differences `allowlist suggest` proposes entries for: those that need a
// review (unreviewed, and changed since review), or, with all, every semantic difference.
func (r *Report) ToSuggest(all bool) []diff.Difference {
	if all {
		return r.Differences
	}
	out := slices.Clone(r.Outcome.Unreviewed)
	for _, c := range r.Outcome.Changed {
		out = append(out, c.Differences...)
	}
	return out
}

// Findings returns the report's findings: one error per unreviewed difference (phase parity, or
// probe for probe differences), one error per difference changed since review and per stale
// entry (phase allowlist, at the entry's line), and one info per cosmetic difference.
func (r *Report) Findings() []finding.Finding {
	var out []finding.Finding
	for _, d := range r.Outcome.Unreviewed {
		f := finding.Finding{Phase: finding.PhaseParity, Rule: RuleUnreviewedDifference, Severity: finding.SevError,
			Message: differenceMessage(d), Object: d.Kind + " " + d.Object}
		if d.Kind == kindProbe {
			f.Phase, f.Rule = finding.PhaseProbe, RuleProbeDifference
		}
		r.place(&f, d)
		if d.Kind != diff.KindDimension { // its message names the expected and the found type
			f.From, f.To = d.Shown()
		}
		f.Accept = allowlist.EntryText(allowlist.EntryFor(d, "TODO"))
		out = append(out, f)
	}
	for _, c := range r.Outcome.Changed {
		out = append(out, r.changedFinding(c))
	}
	for _, e := range r.Outcome.Stale {
		out = append(out, finding.Finding{Phase: finding.PhaseAllow, Rule: RuleStaleAllowlistEntry, Severity: finding.SevError,
			Pos:     finding.Position{File: r.Allowlist, Line: e.Line, Col: 1},
			Message: staleMessage(e)})
	}
	for _, d := range r.Outcome.Cosmetic {
		f := finding.Finding{Phase: finding.PhaseParity, Rule: RuleCosmeticDifference, Severity: finding.SevInfo,
			Message: differenceMessage(d), Object: d.Kind + " " + d.Object}
		r.place(&f, d)
		f.From, f.To = d.Shown()
		out = append(out, f)
	}
	return out
}

// staleMessage says why an entry is stale and what to do.
func staleMessage(e *allowlist.Entry) string {
	what := "accepts no difference"
	if len(e.Probes) > 0 {
		what = "does not match every probe it lists (each must return the rows it was reviewed with)"
	}
	return "allowlist entry " + e.String() + " " + what + "; remove it (`ledgercheck allowlist suggest --write` does) or update it"
}

// changedFinding is the one finding of a difference that changed since review: at the entry, with
// the reviewed values and the new ones.
func (r *Report) changedFinding(c allowlist.Change) finding.Finding {
	d := c.Differences[0]
	f := finding.Finding{Phase: finding.PhaseAllow, Rule: RuleChangedSinceReview, Severity: finding.SevError,
		Pos: finding.Position{File: r.Allowlist, Line: c.Entry.Line, Col: 1}, Object: d.Kind + " " + d.Object}
	what := strings.TrimSuffix(differenceMessage(d), " differs")
	if d.Presence() != diff.InBoth {
		what = d.Kind + " " + finding.ShortIdentity(d.Object) + ", " + presence(d) + ","
	}
	var names []string
	for _, x := range c.Differences {
		names = append(names, x.Object)
	}
	da, dp := d.Values()
	l, rt, pinned := c.Reviewed()
	which, before, after := sinceReview(c, d)
	switch {
	case len(c.Entry.Probes) > 0:
		f.Message = fmt.Sprintf("probes %s return other rows than reviewed (allowlist entry %s)", strings.Join(names, ", "), c.Entry.String())
	case d.Kind == diff.KindDimension && pinned:
		f.Message = fmt.Sprintf("%s changed since review: reviewed expected %s and found %s, now %s and %s", what, shown(l), shown(rt), shown(da), shown(dp))
	case pinned && short(l, rt, da, dp) && l == da:
		f.Message = fmt.Sprintf("%s changed since review: the port's value was %s, is now %s (the artifact's: %s)", what, shown(rt), shown(dp), shown(da))
	case pinned && short(l, rt, da, dp) && rt == dp:
		f.Message = fmt.Sprintf("%s changed since review: the artifact's value was %s, is now %s (the port's: %s)", what, shown(l), shown(da), shown(dp))
	case pinned && short(l, rt, da, dp):
		f.Message = fmt.Sprintf("%s changed since review: reviewed %s in the artifact and %s in the port, now %s and %s", what, shown(l), shown(rt), shown(da), shown(dp))
	case which != "":
		f.Message = fmt.Sprintf("%s changed since review: the %s's value is not the reviewed one (below, as reviewed and now)", what, which)
	case pinned || c.Entry.Digest == "" || hasReviewedText(c):
		f.Message = fmt.Sprintf("%s changed since review: both the artifact's and the port's values differ from the reviewed ones (below, as they are now)", what)
	default:
		f.Message = fmt.Sprintf("%s changed since review: the entry pins other values by digest (%s…), and no reviewed file keeps them (`allowlist suggest --write` does); the artifact's and the port's values now are below", what, strings.TrimPrefix(c.Entry.Digest, "sha256:")[:12])
	}
	if pinned && short(l, rt) {
		f.Detail = "reviewed: " + shown(l) + " → " + shown(rt) + "\nnow:      " + shown(da) + " → " + shown(dp)
		return f
	}
	if which != "" {
		f.From, f.To, f.FromLabel, f.ToLabel = before, after, which+", reviewed", which+", now"
		return f
	}
	f.From, f.To = d.Shown()
	return f
}

func hasReviewedText(c allowlist.Change) bool {
	_, _, ok := c.ReviewedText()
	return ok
}

// sinceReview returns which variant's value changed since review, when only one did, with that
// value as reviewed and as it is now, so that the reviewed part of the difference is not shown
// again as if it were new. The reviewed values are the entry's pinned values, compared with the
// difference's values, or, for an entry pinned by digest, the texts the reviewed file kept,
// compared with the texts shown now. which is "" when the reviewed values are not known or both
// changed.
func sinceReview(c allowlist.Change, d diff.Difference) (which, before, after string) {
	a, p, ok := c.ReviewedText()
	na, np := d.Shown()
	if !ok {
		if a, p, ok = c.Reviewed(); !ok {
			return "", "", ""
		}
		na, np = d.Values()
	}
	switch {
	case a == na && p != np:
		return "port", p, np
	case p == np && a != na:
		return "artifact", a, na
	}
	return "", "", ""
}

// short reports whether values are short enough to quote in a message: one line, 200 bytes in
// all.
func short(values ...string) bool {
	n := 0
	for _, v := range values {
		if strings.ContainsAny(v, "\n\r") {
			return false
		}
		n += len(v)
	}
	return n < 200
}

// shown quotes a value for a message; absent for "".
func shown(v string) string {
	if v == "" {
		return "(absent)"
	}
	return strconv.Quote(v)
}

func differenceMessage(d diff.Difference) string {
	obj := finding.ShortIdentity(d.Object)
	switch {
	case d.Kind == kindProbe:
		return "probe " + obj + " returns different rows on the two installs"
	case d.Kind == diff.KindDimension:
		return d.Note
	case d.Attr == diff.AttrRenamed:
		return d.Kind + " " + d.Artifact + " is renamed " + namesOf(d.Kind, d.Port)[0] + " in the port (same definition)"
	case d.Presence() != diff.InBoth:
		return d.Kind + " " + obj + ": " + presence(d)
	case d.Class == introspect.Cosmetic:
		return d.Attr + " of " + d.Kind + " " + obj + " differs in layout or comments only"
	}
	return d.Attr + " of " + d.Kind + " " + obj + " differs"
}

// presence says which variant has a one-sided object, and what it holds: "only in the port (4
// columns, 2 indexes)".
func presence(d diff.Difference) string {
	s := "only in the artifact"
	if d.Presence() == diff.PortOnly {
		s = "only in the port"
	}
	if m := d.Members(); m != "" {
		s += " (" + m + ")"
	}
	return s
}

func rowCount(r *scratch.Rows) string {
	switch {
	case r == nil:
		return "error"
	case len(r.Rows) == 1:
		return "1 row"
	}
	return fmt.Sprintf("%d rows", len(r.Rows))
}
