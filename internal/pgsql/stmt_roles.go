package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The roles family: CREATE, ALTER and DROP ROLE (GRANT role TO role is the grants family's). No
// detail of its own.
var roleStatements = statements{
	{(*pg_query.Node_CreateRoleStmt)(nil), createRole},
	{(*pg_query.Node_AlterRoleStmt)(nil), alterRole},
	{(*pg_query.Node_DropRoleStmt)(nil), dropRole},
}

func createRole(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbCreate, "CREATE ROLE"
	op.Objects = []Object{global(KindRole, n.GetCreateRoleStmt().Role, op.Pos)}
	return nil
}

func alterRole(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbAlter, "ALTER ROLE"
	op.Objects = []Object{global(KindRole, roleName(n.GetAlterRoleStmt().Role), op.Pos)}
	return nil
}

func dropRole(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetDropRoleStmt()
	op.Verb, op.Tag, op.IfExists = VerbDrop, "DROP ROLE", x.MissingOk
	for _, r := range roleNames(x.Roles) {
		op.Objects = append(op.Objects, global(KindRole, r, op.Pos))
	}
	return nil
}

// roleName is the name of a role in a statement; PUBLIC is "public", CURRENT_USER
// "current_user".
func roleName(r *pg_query.RoleSpec) string {
	if r == nil {
		return ""
	}
	switch r.Roletype {
	case pg_query.RoleSpecType_ROLESPEC_PUBLIC:
		return "public"
	case pg_query.RoleSpecType_ROLESPEC_CSTRING:
		return r.Rolename
	}
	return strings.ToLower(strings.TrimPrefix(r.Roletype.String(), "ROLESPEC_"))
}

// roleNames are the names of a list of RoleSpec nodes.
func roleNames(nodes []*pg_query.Node) []string {
	var out []string
	for _, n := range nodes {
		if r := n.GetRoleSpec(); r != nil {
			out = append(out, roleName(r))
		}
	}
	return out
}
