// Helpers the function rules (security-definer-*, function-search-path) share.

package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// functionDefs returns the CREATE FUNCTION and CREATE PROCEDURE ops of the file.
func functionDefs(p *Pass) []*pgsql.Op {
	var out []*pgsql.Op
	for _, op := range p.Ops() {
		if op.Verb == pgsql.VerbCreate && op.Func() != nil && len(op.Objects) > 0 {
			out = append(out, op)
		}
	}
	return out
}

// pinned reports whether the function created by def has a pinned search_path, in its
// definition or by a later ALTER FUNCTION ... SET search_path.
func pinned(p *Pass, def *pgsql.Op) bool {
	if def.Func().PinnedPath {
		return true
	}
	if p.alterFns == nil {
		p.alterFns = p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbAlter && op.Func() != nil })
	}
	for _, op := range p.alterFns[def.Objects[0].Name.Name] {
		if op.Verb == pgsql.VerbAlter && op.Func() != nil && op.Func().PinnedPath && len(op.Objects) > 0 && sameRelation(op.Objects[0], op.SearchPath, def.Objects[0].Name) && op.Objects[0].SameArgs(def.Objects[0]) {
			return true
		}
	}
	return false
}
