package gate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"ledgercheck/allowlist"
	"ledgercheck/diff"
	"ledgercheck/pgsql"
	"ledgercheck/report"
)

// The gate's own rules (lint's come from its registry).
const (
	// RuleParityDifference is a difference between the two installs that no allowlist entry
	// accepts.
	RuleParityDifference = "unreviewed-difference"
	// RuleStaleAllowlistEntry is an allowlist entry that accepts no difference.
	RuleStaleAllowlistEntry = "stale-allowlist-entry"
)

// Rules describes the gate's own rules for SARIF; lint's and rerun's are added by the caller.
func Rules() []report.RuleInfo {
	return []report.RuleInfo{
		{ID: RuleInstallFailed, Severity: report.SevError,
			Summary: "a variant does not install on a fresh Supabase-like database",
			Help: `The migration was run statement by statement, as psql -v ON_ERROR_STOP=1 -f would, on a
fresh scratch database with the Supabase environment and the Open Brain prerequisites at the
variant's dimension, and the server rejected a statement. The finding points at it and carries the
server's message, detail and hint. Nothing that needs the install (parity, probes) is checked.`},
		{ID: RuleParityDifference, Severity: report.SevError,
			Summary: "the artifact and the port install different schemas, and no allowlist entry accepts the difference",
			Help: `Both variants were installed into their own database and their footprints (what each install
created and changed in the catalog) compared attribute by attribute, with vector dimensions
normalized. Every remaining semantic difference must be reviewed: fix the port, or add an entry to
allowlist.yaml that pins the difference (kind, object, attr, and the left and right values or
their digest) with a reason. ` + "`ledgercheck allowlist suggest`" + ` prints candidate entries with reason TODO,
which the gate rejects until a person writes the reason.`},
		{ID: RuleStaleAllowlistEntry, Severity: report.SevError,
			Summary: "an allowlist entry accepts no difference",
			Help: `An entry that matches nothing is stale: the difference it accepted was fixed or changed, and
the entry would silently accept a future, different one. Remove it, or update its values after
reviewing the new difference.`},
	}
}

// CatalogParity returns a [ParityFunc] that compares the installs' footprints with
// [diff.Compare] and sorts the differences through the allowlist (nil: no allowlist, every
// semantic difference is a finding). It reports two phases: "parity" (unreviewed differences,
// with notes on dimension normalizations and accepted and cosmetic differences) and "allowlist"
// (stale entries).
func CatalogParity(al *allowlist.File) ParityFunc {
	return func(_ context.Context, left, right *Install) ([]report.PhaseResult, error) {
		s0 := time.Now()
		res := diff.Compare(side(left), side(right))
		out := al.Apply(res.Differences)
		par := report.PhaseResult{Phase: report.PhaseParity, Name: "parity", File: right.Variant.File,
			Counts: map[string]int{
				"differences":   len(res.Differences),
				"allowlisted":   len(out.Accepted),
				"cosmetic":      len(out.Cosmetic),
				"unreviewed":    len(out.Unreviewed),
				"normalized":    len(res.Sites),
				"objects_left":  len(left.Footprint.Created),
				"objects_right": len(right.Footprint.Created),
			}}
		par.Notes = append(par.Notes, fmt.Sprintf("%d differences between %s and %s: %d allowlisted, %d cosmetic, %d unreviewed",
			len(res.Differences), left.Variant.Label(), right.Variant.Label(), len(out.Accepted), len(out.Cosmetic), len(out.Unreviewed)))
		if len(res.Sites) > 0 {
			var names []string
			for _, s := range res.Sites {
				names = append(names, s.String())
			}
			par.Notes = append(par.Notes, fmt.Sprintf("%d dimension normalizations (vector(%d) on the left is vector(%d) on the right): %s",
				len(res.Sites), left.Variant.Dim, right.Variant.Dim, strings.Join(names, "; ")))
		}
		for _, d := range out.Cosmetic {
			par.Notes = append(par.Notes, "cosmetic: "+heading(d))
		}
		for _, d := range out.Unreviewed {
			par.Findings = append(par.Findings, differenceFinding(d, res.Left, res.Right))
		}
		par.Duration = time.Since(s0)

		alPhase := report.PhaseResult{Phase: report.PhaseAllow, Name: "allowlist"}
		if al == nil {
			alPhase.Notes = []string{"no allowlist: every semantic difference is a finding"}
		} else {
			alPhase.File = al.Path
			alPhase.Notes = []string{fmt.Sprintf("%d entries, %d accepted a difference, %d stale", len(al.Entries), len(al.Entries)-len(out.Stale), len(out.Stale))}
			alPhase.Counts = map[string]int{"entries": len(al.Entries), "stale": len(out.Stale)}
			for _, e := range out.Stale {
				alPhase.Findings = append(alPhase.Findings, report.Finding{
					Phase: report.PhaseAllow, Rule: RuleStaleAllowlistEntry, Severity: report.SevError,
					Pos:     pgsql.Position{File: al.Path, Line: e.Line, Col: 3},
					Message: fmt.Sprintf("allowlist entry %s accepts no difference; remove it or update it (reason was: %s)", e.String(), e.Reason),
					Object:  strings.TrimSpace(e.Kind + " " + e.Object),
				})
			}
		}
		return []report.PhaseResult{par, alPhase}, nil
	}
}

func side(in *Install) diff.Side {
	return diff.Side{Label: in.Variant.Name, File: in.Variant.File, Dim: in.Variant.Dim, Footprint: in.Footprint, Source: in.Source}
}

// heading is "kind object: attr", with which side has a one-sided object.
func heading(d diff.Difference) string {
	h := d.Kind + " " + d.Object
	if d.Attr != "" {
		h += ": " + d.Attr
	}
	if p := d.Presence(); p != "" {
		h += " (" + p + ")"
	}
	return h
}

// differenceFinding turns an unreviewed difference into a finding: texts as left and right
// sides (the html format shows them side by side, the others as a unified diff), short values
// in the message.
func differenceFinding(d diff.Difference, l, r diff.SideInfo) report.Finding {
	f := report.Finding{Phase: report.PhaseParity, Rule: RuleParityDifference, Severity: report.SevError, Object: strings.TrimSpace(d.Kind + " " + d.Object)}
	if d.Pos != nil {
		f.Pos = *d.Pos
	}
	left, right := d.Shown()
	what := "differs"
	if d.Attr != "" {
		what = d.Attr + " differs"
	}
	switch {
	case d.Presence() != "":
		f.Message = fmt.Sprintf("%s exists only in the %s", d.Kind+" "+d.Object, map[bool]string{true: l.Label, false: r.Label}[d.Presence() == "left only"])
		f.Left, f.Right = left, right
	case d.IsText():
		f.Message = what
		f.Left, f.Right = left, right
	default:
		f.Message = fmt.Sprintf("%s: %s in the %s, %s in the %s", what, shown(left), l.Label, shown(right), r.Label)
	}
	if d.Note != "" {
		f.Message += "; " + d.Note
	}
	return f
}

func shown(v string) string {
	if v == "" {
		return "absent"
	}
	return fmt.Sprintf("%q", v)
}
