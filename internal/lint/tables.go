// Helpers the table rules (table-rls-disabled, table-no-service-role-*) share.

package lint

import (
	"slices"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// newTables returns the CREATE TABLE ops of tables the file owns.
func newTables(p *Pass) []*pgsql.Op {
	var out []*pgsql.Op
	seen := map[pgsql.Name]bool{}
	for _, op := range p.Ops() {
		if op.Verb != pgsql.VerbCreate || len(op.Objects) == 0 || op.Objects[0].Kind != pgsql.KindTable {
			continue
		}
		obj := op.Objects[0]
		if p.Own.Existing(obj) || seen[obj.Name] {
			continue
		}
		seen[obj.Name] = true
		out = append(out, op)
	}
	return out
}

// sameRelation reports whether obj, seen in an op with search path path, names the relation n.
func sameRelation(obj pgsql.Object, path []string, n pgsql.Name) bool {
	if obj.Name.Name != n.Name {
		return false
	}
	if obj.Qualified || obj.Name.Schema == n.Schema {
		return obj.Name.Schema == n.Schema
	}
	return slices.Contains(path, n.Schema)
}

func sameTable(t pgsql.Name, qualified bool, path []string, n pgsql.Name) bool {
	return sameRelation(pgsql.Object{Kind: pgsql.KindTable, Name: t, Qualified: qualified}, path, n)
}

// granted reports whether the file grants something on relation n to role.
func granted(p *Pass, grants map[string][]*pgsql.Op, n pgsql.Name, role string) bool {
	for _, op := range append(grants[n.Name], grants[n.Schema]...) {
		if op.Verb != pgsql.VerbGrant || op.Grant() == nil || op.Grant().Defaults || op.Grant().Role || !slices.Contains(op.Grant().Grantees, role) {
			continue
		}
		for _, o := range op.Objects {
			if op.Grant().AllInSchema && o.Name.Name == n.Schema {
				return true
			}
			if sameRelation(o, op.SearchPath, n) {
				return true
			}
		}
	}
	return false
}
