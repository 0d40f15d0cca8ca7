package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The grants family: GRANT and REVOKE on objects, ALTER DEFAULT PRIVILEGES, and GRANT and REVOKE
// of role membership ([Grant]).
var grantStatements = statements{
	{(*pg_query.Node_GrantStmt)(nil), grant},
	{(*pg_query.Node_AlterDefaultPrivilegesStmt)(nil), defaultPrivileges},
	{(*pg_query.Node_GrantRoleStmt)(nil), grantRole},
}

// Grant is the content of GRANT or REVOKE on objects (or ALTER DEFAULT PRIVILEGES, or of role
// membership).
type Grant struct {
	// Privileges are lower case ("select", "execute"); "all" for ALL [PRIVILEGES].
	Privileges []string `json:"privileges"`
	// Grantees are role names as folded; PUBLIC is "public".
	Grantees []string `json:"grantees"`
	// AllInSchema is set for ... ON ALL TABLES|FUNCTIONS|SEQUENCES IN SCHEMA; the objects are then
	// the schemas.
	AllInSchema bool `json:"all_in_schema,omitempty"`
	// Defaults is set for ALTER DEFAULT PRIVILEGES.
	Defaults bool `json:"defaults,omitempty"`
	// Role is set for GRANT role TO role (membership); the objects are the granted roles.
	Role bool `json:"role,omitempty"`
	// Target is the kind of the objects whose privileges change: the objects' own kind, or, for
	// ... ON ALL FUNCTIONS IN SCHEMA and ALTER DEFAULT PRIVILEGES, the kind of the objects
	// concerned (table, sequence, function, type, schema).
	Target ObjKind `json:"target,omitempty"`
	// ForRoles are the roles of ALTER DEFAULT PRIVILEGES FOR ROLE (empty: the current role).
	ForRoles []string `json:"for_roles,omitempty"`
}

func (*Grant) family() string { return "grants" }

// Grant returns the grant of a GRANT, REVOKE or ALTER DEFAULT PRIVILEGES, or nil.
func (o *Op) Grant() *Grant {
	g, _ := o.Family.(*Grant)
	return g
}

func grant(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	a.grant(sc, n.GetGrantStmt(), op)
	return nil
}

func (a *analyzer) grant(sc *scope, x *pg_query.GrantStmt, op *draft) *Grant {
	op.Verb, op.Tag = VerbRevoke, "REVOKE"
	if x.IsGrant {
		op.Verb, op.Tag = VerbGrant, "GRANT"
	}
	g := &Grant{AllInSchema: x.Targtype == pg_query.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA, Grantees: roleNames(x.Grantees)}
	for _, p := range x.Privileges {
		if ap := p.GetAccessPriv(); ap != nil {
			g.Privileges = append(g.Privileges, strings.ToLower(ap.PrivName))
		}
	}
	if len(g.Privileges) == 0 {
		g.Privileges = []string{"all"}
	}
	op.Family = g
	kind := kindOf(x.Objtype)
	g.Target = kind
	if g.AllInSchema {
		kind = KindSchema
	}
	for _, o := range x.Objects {
		op.Objects = append(op.Objects, a.objOf(sc, kind, o, op.Pos))
	}
	return g
}

func defaultPrivileges(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetAlterDefaultPrivilegesStmt()
	g := &Grant{}
	if x.Action != nil {
		g = a.grant(sc, x.Action, op)
	}
	op.Tag = "ALTER DEFAULT PRIVILEGES"
	g.Defaults = true
	op.Family = g
	op.Objects = nil
	for _, o := range x.Options {
		d := o.GetDefElem()
		switch {
		case d == nil:
		case d.Defname == "schemas":
			for _, sn := range strs(d.Arg.GetList().GetItems()) {
				op.Objects = append(op.Objects, global(KindSchema, sn, op.Pos))
			}
		case d.Defname == "roles":
			g.ForRoles = roleNames(d.Arg.GetList().GetItems())
		}
	}
	if len(op.Objects) == 0 {
		op.Objects = []Object{global("default privileges", "all schemas", op.Pos)}
	}
	return nil
}

func grantRole(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetGrantRoleStmt()
	op.Verb, op.Tag = VerbRevoke, "REVOKE ROLE"
	if x.IsGrant {
		op.Verb, op.Tag = VerbGrant, "GRANT ROLE"
	}
	op.Family = &Grant{Role: true, Grantees: roleNames(x.GranteeRoles)}
	for _, r := range x.GrantedRoles {
		if ap := r.GetAccessPriv(); ap != nil {
			op.Objects = append(op.Objects, global(KindRole, ap.PrivName, op.Pos))
		}
	}
	return nil
}
