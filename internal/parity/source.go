package parity

import (
	"github.com/ledgercheck/ledgercheck/diff"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// DeclaredSource is what diff reads from a parsed variant, as the plain data of its public API.
func DeclaredSource(f *pgsql.File) *diff.Source {
	if f == nil {
		return nil
	}
	src := &diff.Source{Name: f.Name}
	for _, sig := range f.Signatures() {
		ds := diff.Signature{Name: sig.Name.String(), Returns: sig.Returns, ReturnsPos: diffPos(sig.ReturnsPos)}
		for _, p := range sig.Params {
			ds.Params = append(ds.Params, diff.Param{Name: p.Name, Mode: p.Mode, Type: p.Type, Pos: diffPos(p.Pos)})
		}
		src.Signatures = append(src.Signatures, ds)
	}
	for _, v := range f.VectorTypes {
		src.VectorTypes = append(src.VectorTypes, diff.VectorType{Type: v.Type, Dim: v.Dim, Pos: diffPos(v.Pos), Statement: f.Describe(v.Pos)})
	}
	return src
}

// Positions cross between internal/finding's type and the public diff's here, and only here:
// diff is the public library and imports nothing internal, finding is the leaf every phase
// shares and imports nothing of ledgercheck's, so each has its Position, with the same fields
// (a conversion that would stop compiling if they ever differed).

// diffPos is p as diff takes it.
func diffPos(p finding.Position) diff.Position { return diff.Position(p) }

// findingPos is p as a finding holds it.
func findingPos(p diff.Position) finding.Position { return finding.Position(p) }
