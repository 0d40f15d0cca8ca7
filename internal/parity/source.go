package parity

import (
	"github.com/ledgercheck/ledgercheck/diff"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// DeclaredSource is what diff reads from a parsed variant, as the plain data of its public API.
func DeclaredSource(f *pgsql.File) *diff.Source {
	if f == nil {
		return nil
	}
	src := &diff.Source{Name: f.Name}
	for _, sig := range f.Signatures() {
		ds := diff.Signature{Name: sig.Name.String(), Returns: sig.Returns, ReturnsPos: diff.Position(sig.ReturnsPos)}
		for _, p := range sig.Params {
			ds.Params = append(ds.Params, diff.Param{Name: p.Name, Mode: p.Mode, Type: p.Type, Pos: diff.Position(p.Pos)})
		}
		src.Signatures = append(src.Signatures, ds)
	}
	for _, v := range f.VectorTypes {
		src.VectorTypes = append(src.VectorTypes, diff.VectorType{Type: v.Type, Dim: v.Dim, Pos: diff.Position(v.Pos), Statement: f.Describe(v.Pos)})
	}
	return src
}
