package parity

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"ledgercheck/diff"
	"ledgercheck/internal/allowlist"
	"ledgercheck/internal/finding"
	"ledgercheck/internal/scratch"
	"ledgercheck/introspect"
)

// Status of a difference in a report.
const (
	StatusAllowlisted = "allowlisted"
	StatusUnreviewed  = "unreviewed"
	StatusCosmetic    = "cosmetic"
)

// Summary counts what a report holds.
type Summary struct {
	Differences     int `json:"differences"`
	Allowlisted     int `json:"allowlisted"`
	Unreviewed      int `json:"unreviewed"`
	Cosmetic        int `json:"cosmetic"`
	DimensionSites  int `json:"dimension_sites"`
	Stale           int `json:"stale_entries"`
	Probes          int `json:"probes"`
	ProbesDiffering int `json:"probes_differing"`
}

// Summary counts the report.
func (r *Report) Summary() Summary {
	s := Summary{
		Differences:    len(r.Differences),
		Allowlisted:    len(r.Outcome.Accepted),
		Unreviewed:     len(r.Outcome.Unreviewed),
		Cosmetic:       len(r.Outcome.Cosmetic),
		DimensionSites: len(r.Sites),
		Stale:          len(r.Outcome.Stale),
		Probes:         len(r.Probes),
	}
	for _, p := range r.Probes {
		if !p.Equal {
			s.ProbesDiffering++
		}
	}
	return s
}

// JSONVersion is the version of the JSON report's schema; it changes only when a field changes
// meaning or disappears.
const JSONVersion = 1

// jsonReport is the JSON report: stable field names, differences in sorted order.
type jsonReport struct {
	Version     int              `json:"version"`
	Passed      bool             `json:"passed"`
	Left        diff.SideInfo    `json:"left"`
	Right       diff.SideInfo    `json:"right"`
	Allowlist   string           `json:"allowlist"`
	Summary     Summary          `json:"summary"`
	Differences []jsonDifference `json:"differences"`
	Sites       []diff.Site      `json:"dimension_sites"`
	Stale       []jsonEntry      `json:"stale_entries"`
	Probes      []jsonProbe      `json:"probes"`
}

type jsonDifference struct {
	diff.Difference
	Status string `json:"status"`
	Digest string `json:"digest"`
	Reason string `json:"reason,omitempty"`
	// Entries are the allowlist lines that accept the difference.
	Entries []int `json:"entries,omitempty"`
}

type jsonEntry struct {
	Line   int    `json:"line"`
	Kind   string `json:"kind"`
	Object string `json:"object"`
	Attr   string `json:"attr"`
	Reason string `json:"reason"`
}

type jsonProbe struct {
	Name  string            `json:"name"`
	Equal bool              `json:"equal"`
	Error map[string]string `json:"error,omitempty"`
}

// statuses returns each difference with its status, reason and entries, in report order.
func (r *Report) statuses() []jsonDifference {
	byID := map[string]allowlist.Match{}
	for _, m := range r.Outcome.Accepted {
		byID[m.Difference.ID] = m
	}
	out := make([]jsonDifference, 0, len(r.Differences))
	for _, d := range r.Differences {
		jd := jsonDifference{Difference: d, Digest: d.Digest(), Status: StatusUnreviewed}
		if d.Class == introspect.Cosmetic {
			jd.Status = StatusCosmetic
		} else if m, ok := byID[d.ID]; ok {
			jd.Status, jd.Reason, jd.Entries = StatusAllowlisted, m.Reason, m.Entries
		}
		out = append(out, jd)
	}
	return out
}

// WriteJSON writes the report as one JSON document (schema version [JSONVersion]).
func (r *Report) WriteJSON(w io.Writer) error {
	jr := jsonReport{
		Version: JSONVersion, Passed: r.Passed(), Left: r.Left, Right: r.Right, Allowlist: r.Allowlist,
		Summary: r.Summary(), Differences: r.statuses(), Sites: r.Sites,
		Stale: []jsonEntry{}, Probes: []jsonProbe{},
	}
	if jr.Sites == nil {
		jr.Sites = []diff.Site{}
	}
	for _, e := range r.Outcome.Stale {
		obj := e.Object
		if obj == "" {
			obj = "~" + e.ObjectMatch
		}
		jr.Stale = append(jr.Stale, jsonEntry{Line: e.Line, Kind: e.Kind, Object: obj, Attr: e.Attr, Reason: e.Reason})
	}
	for _, p := range r.Probes {
		jr.Probes = append(jr.Probes, jsonProbe{Name: p.Name, Equal: p.Equal, Error: p.Error})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jr)
}

// WriteText writes the report for a person: the summary, the dimension sites, then each
// unreviewed difference with its values or unified diff, the stale entries, and the cosmetic
// differences. With color, diffs and headings use ANSI colors.
func (r *Report) WriteText(w io.Writer, color bool) error {
	var b strings.Builder
	s := r.Summary()
	allow := r.Allowlist
	if allow == "" {
		allow = "(none)"
	}
	fmt.Fprintf(&b, "parity: left %s (dim %d) vs right %s (dim %d), allowlist %s\n", r.Left.File, r.Left.Dim, r.Right.File, r.Right.Dim, allow)
	fmt.Fprintf(&b, "  differences found:        %d\n", s.Differences)
	fmt.Fprintf(&b, "  allowlisted:              %d\n", s.Allowlisted)
	fmt.Fprintf(&b, "  unreviewed:               %d\n", s.Unreviewed)
	fmt.Fprintf(&b, "  cosmetic (not failing):   %d\n", s.Cosmetic)
	fmt.Fprintf(&b, "  probes differing:         %d of %d\n", s.ProbesDiffering, s.Probes)
	fmt.Fprintf(&b, "  dimension normalizations: %d\n", s.DimensionSites)
	fmt.Fprintf(&b, "  stale allowlist entries:  %d\n", s.Stale)
	if len(r.Sites) > 0 {
		fmt.Fprintf(&b, "\ndimension normalizations (vector, halfvec, sparsevec: %d on the left is %d on the right):\n", r.Left.Dim, r.Right.Dim)
		for _, site := range r.Sites {
			fmt.Fprintf(&b, "  %s%s\n", site, sitePositions(site))
		}
	}
	if len(r.Probes) > 0 {
		fmt.Fprintf(&b, "\nprobes (%d):\n", len(r.Probes))
		for _, p := range r.Probes {
			state := "same rows"
			if !p.Equal {
				state = "DIFFERENT"
			}
			fmt.Fprintf(&b, "  %-28s left %s, right %s: %s\n", p.Name, rowCount(p.Left), rowCount(p.Right), state)
		}
	}
	if len(r.Outcome.Unreviewed) > 0 {
		fmt.Fprintf(&b, "\nunreviewed differences (%d):\n", len(r.Outcome.Unreviewed))
		for _, d := range r.Outcome.Unreviewed {
			b.WriteString("\n")
			if err := diff.Write(&b, d, r.Left, r.Right, color); err != nil {
				return err
			}
			fmt.Fprintf(&b, "  digest: %s\n", d.Digest())
		}
	}
	if len(r.Outcome.Stale) > 0 {
		fmt.Fprintf(&b, "\nstale allowlist entries (%d): each accepts no difference; remove it, or update it to the difference the report shows\n", len(r.Outcome.Stale))
		for _, e := range r.Outcome.Stale {
			fmt.Fprintf(&b, "  %s:%d: %s\n", r.Allowlist, e.Line, e.String())
		}
	}
	if len(r.Outcome.Cosmetic) > 0 {
		fmt.Fprintf(&b, "\ncosmetic differences (%d, layout or comments only; they do not fail):\n", len(r.Outcome.Cosmetic))
		for _, d := range r.Outcome.Cosmetic {
			b.WriteString("\n")
			if err := diff.Write(&b, d, r.Left, r.Right, color); err != nil {
				return err
			}
		}
	}
	if len(r.Outcome.Accepted) > 0 {
		fmt.Fprintf(&b, "\nallowlisted differences (%d):\n", len(r.Outcome.Accepted))
		for _, m := range r.Outcome.Accepted {
			fmt.Fprintf(&b, "  %s:%d: %s\n", r.Allowlist, m.Entries[0], strings.TrimSpace(strings.SplitN(m.Difference.ID, " #", 2)[0]))
		}
	}
	if r.Passed() {
		b.WriteString("\nparity: PASS\n")
	} else {
		b.WriteString("\nparity: FAIL\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sitePositions(s diff.Site) string {
	var parts []string
	if s.LeftPos != nil {
		parts = append(parts, "left "+s.LeftPos.String())
	}
	if s.RightPos != nil {
		parts = append(parts, "right "+s.RightPos.String())
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, ", ") + "]"
}

// Findings returns the report as findings for the check command: one error per unreviewed
// difference (phase parity, or probe for probe differences), one error per stale entry (phase
// allowlist, at the entry's line), and one info per cosmetic difference.
func (r *Report) Findings() []finding.Finding {
	var out []finding.Finding
	for _, d := range r.Outcome.Unreviewed {
		f := finding.Finding{Phase: finding.PhaseParity, Rule: RuleUnreviewedDifference, Severity: finding.SevError,
			Message: differenceMessage(d), Object: d.Kind + " " + d.Object}
		if d.Kind == "probe" {
			f.Phase, f.Rule = finding.PhaseProbe, RuleProbeDifference
		}
		if d.Pos != nil {
			f.Pos = *d.Pos
		}
		f.Left, f.Right = d.Shown()
		out = append(out, f)
	}
	for _, e := range r.Outcome.Stale {
		out = append(out, finding.Finding{Phase: finding.PhaseAllow, Rule: RuleStaleAllowlistEntry, Severity: finding.SevError,
			Pos:     finding.Position{File: r.Allowlist, Line: e.Line, Col: 1},
			Message: "allowlist entry " + e.String() + " accepts no difference; remove it or update it"})
	}
	for _, d := range r.Outcome.Cosmetic {
		f := finding.Finding{Phase: finding.PhaseParity, Rule: RuleCosmeticDifference, Severity: finding.SevInfo,
			Message: differenceMessage(d), Object: d.Kind + " " + d.Object}
		f.Left, f.Right = d.Shown()
		out = append(out, f)
	}
	return out
}

func differenceMessage(d diff.Difference) string {
	switch {
	case d.Kind == "probe":
		return "probe " + d.Object + " returns different rows on the two installs"
	case d.Kind == "dimension":
		return d.Note
	case d.Presence() != "":
		return d.Kind + " " + d.Object + " exists on the " + strings.TrimSuffix(d.Presence(), " only") + " only"
	case d.Class == introspect.Cosmetic:
		return d.Attr + " of " + d.Kind + " " + d.Object + " differs in layout or comments only"
	}
	return d.Attr + " of " + d.Kind + " " + d.Object + " differs"
}

func rowCount(r *scratch.Rows) string {
	if r == nil {
		return "error"
	}
	if len(r.Rows) == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", len(r.Rows))
}
