// Helpers the grant rules (grant-to-api-role, missing-explicit-grant) share.

package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

var apiRoles = []string{"anon", "authenticated", "public"}

// hasPrivilegeStmt reports whether one of ops (the GRANTs and REVOKEs naming obj) is on obj.
func hasPrivilegeStmt(ops []*pgsql.Op, obj pgsql.Object) bool {
	fn := obj.Kind == pgsql.KindFunction || obj.Kind == pgsql.KindProcedure
	for _, op := range ops {
		if (op.Verb != pgsql.VerbGrant && op.Verb != pgsql.VerbRevoke) || op.Grant() == nil || op.Grant().Role || op.Grant().Defaults {
			continue
		}
		for _, o := range op.Objects {
			ofn := o.Kind == pgsql.KindFunction || o.Kind == pgsql.KindProcedure
			if fn != ofn {
				continue
			}
			if sameRelation(o, op.SearchPath, obj.Name) && o.SameArgs(obj) {
				return true
			}
		}
	}
	return false
}
