package pgsql

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The policies family: CREATE POLICY and ALTER POLICY, with the roles they apply to ([Policy]).
var policyStatements = statements{
	{(*pg_query.Node_CreatePolicyStmt)(nil), createPolicy},
	{(*pg_query.Node_AlterPolicyStmt)(nil), alterPolicy},
}

// Policy is the detail of CREATE POLICY and ALTER POLICY.
type Policy struct {
	// Roles are the policy's TO roles (folded; PUBLIC is "public"; empty means PUBLIC).
	Roles []string `json:"roles,omitempty"`
}

func (*Policy) family() string { return "policies" }

// Roles returns a policy's TO roles, or nil.
func (o *Op) Roles() []string {
	if p, ok := o.Family.(*Policy); ok {
		return p.Roles
	}
	return nil
}

func createPolicy(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCreatePolicyStmt()
	op.Verb, op.Tag = VerbCreate, "CREATE POLICY"
	a.onTable(sc, op, KindPolicy, x.PolicyName, x.Table)
	op.Family = &Policy{Roles: roleNames(x.Roles)}
	return nil
}

func alterPolicy(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetAlterPolicyStmt()
	op.Verb, op.Tag = VerbAlter, "ALTER POLICY"
	a.onTable(sc, op, KindPolicy, x.PolicyName, x.Table)
	op.Objects = op.Objects[:1] // the policy alone: ALTER POLICY creates nothing on the table
	op.Family = &Policy{Roles: roleNames(x.Roles)}
	return nil
}
