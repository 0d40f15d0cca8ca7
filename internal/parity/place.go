package parity

import (
	"fmt"

	"github.com/ledgercheck/ledgercheck/diff"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/probe"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// place points the finding of difference d at a statement: its own position when the
// difference comes from the source (a declared signature); else the port's statement that
// created or changed the object (when only the artifact has a statement that sets the
// attribute, such as a GRANT the port lacks, the message names it); for an object only in the
// artifact, the artifact's statement, which the message names; for a probe, the statement of the
// port that created the function or relation the probe reads, else the probe in the
// configuration. A difference no statement explains says so in its message and keeps no
// position.
func (r *Report) place(f *finding.Finding, d diff.Difference) {
	if d.Pos != nil {
		f.Pos = findingPos(*d.Pos)
		return
	}
	art, port := r.statements[0], r.statements[1]
	switch {
	case d.Kind == kindProbe:
		r.placeProbe(f, d.Object)
		return
	case d.Kind == diff.KindDimension:
		return
	case d.Presence() == diff.ArtifactOnly:
		if pos, ok := art.Statement(d.Kind, d.Object, ""); ok {
			f.Pos = pos
			f.Message += fmt.Sprintf(", created at %s", pos)
			return
		}
	default:
		if pos, ok := port.Statement(d.Kind, d.Object, d.Attr); ok {
			f.Pos = pos
			if _, own := port.Setter(d.Kind, d.Object, d.Attr); !own && d.Attr != "" {
				if at, ok := art.Setter(d.Kind, d.Object, d.Attr); ok {
					f.Message += fmt.Sprintf("; the artifact sets it at %s", at)
				}
			}
			return
		}
		if pos, ok := art.Statement(d.Kind, d.Object, d.Attr); ok {
			f.Pos = pos
			f.Message += fmt.Sprintf(": no statement of the port names it; the artifact's is at %s", pos)
			return
		}
	}
	if art != nil || port != nil {
		f.Message += ": no statement of either file creates or changes it (a prerequisite's object, or one the server derives)"
	}
}

// probeReads is what a differing probe's SQL reads (pgsql.Reads, parsed once), and where the
// probe is in the configuration.
type probeReads struct {
	funcs, rels []pgsql.Name
	err         error
	pos         finding.Position
}

// readsOf parses p's SQL (at the port's dimension) for what it reads.
func readsOf(p probe.Probe, dim int) probeReads {
	funcs, rels, err := pgsql.Reads(scratch.SubstituteDim(p.SQL, dim))
	return probeReads{funcs: funcs, rels: rels, err: err, pos: p.Pos}
}

// placeProbe points a probe's difference at the port's statement creating what the probe reads
// (the artifact's when the port has none), else at the probe in the configuration.
func (r *Report) placeProbe(f *finding.Finding, name string) {
	rd := r.reads[name]
	if rd.err == nil {
		for i, ix := range []*locate.Index{r.statements[1], r.statements[0]} {
			if pos, what, ok := ix.Reader(rd.funcs, rd.rels); ok {
				f.Pos = pos
				f.Message += "; it reads " + what
				if i == 1 {
					f.Message += fmt.Sprintf(", which the port does not create (the artifact's is at %s)", pos)
				}
				return
			}
		}
	}
	if rd.pos.Line > 0 {
		f.Pos = rd.pos
		f.Message += "; no statement of the port creates what it reads, so it points at the probe"
	}
}
