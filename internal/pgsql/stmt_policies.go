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
	// ServiceRoleClaim is set when USING or WITH CHECK tests auth.role() = 'service_role' (the
	// thoughts policy pattern): a policy for the service_role JWT, whatever its TO roles.
	ServiceRoleClaim bool `json:"service_role_claim,omitempty"`
	// Reads are what USING and WITH CHECK read besides columns, constants and the requester.
	Reads []PolicyRead `json:"reads,omitempty"`
}

// Policy returns the detail of CREATE POLICY or ALTER POLICY, or nil.
func (o *Op) Policy() *Policy {
	p, _ := o.Family.(*Policy)
	return p
}

// testsServiceRole reports whether an expression is, or has among its AND/OR terms,
// auth.role() = 'service_role' (either way round).
func testsServiceRole(n *pg_query.Node) bool {
	if n == nil {
		return false
	}
	if b := n.GetBoolExpr(); b != nil {
		for _, a := range b.Args {
			if testsServiceRole(a) {
				return true
			}
		}
		return false
	}
	e := n.GetAExpr()
	if e == nil || e.Kind != pg_query.A_Expr_Kind_AEXPR_OP {
		return false
	}
	if ops := strs(e.Name); len(ops) != 1 || ops[0] != "=" {
		return false
	}
	isRole := func(n *pg_query.Node) bool {
		fc := n.GetFuncCall()
		names := strs(fc.GetFuncname())
		return fc != nil && len(names) == 2 && names[0] == "auth" && names[1] == "role" && len(fc.Args) == 0
	}
	isLit := func(n *pg_query.Node) bool {
		if tc := n.GetTypeCast(); tc != nil {
			n = tc.Arg
		}
		c := n.GetAConst()
		return c != nil && c.GetSval() != nil && c.GetSval().Sval == "service_role"
	}
	return isRole(e.Lexpr) && isLit(e.Rexpr) || isRole(e.Rexpr) && isLit(e.Lexpr)
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
	atStatement(op)
	op.Family = &Policy{Roles: roleNames(x.Roles), ServiceRoleClaim: testsServiceRole(x.Qual) || testsServiceRole(x.WithCheck),
		Reads: append(conditionReads(a, sc, "USING", x.Qual, op.Pos), conditionReads(a, sc, "WITH CHECK", x.WithCheck, op.Pos)...)}
	return nil
}

// atStatement points a policy statement's findings, and its policy, at the statement's start:
// the parser records no position of a policy's name, and the table's (onTable) is the clause of
// a finding about the table alone ([Op.TableAt]), not of one about the policy.
func atStatement(op *draft) {
	op.Objects[0].Pos, op.at = op.Pos, op.Pos
}

func alterPolicy(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetAlterPolicyStmt()
	op.Verb, op.Tag = VerbAlter, "ALTER POLICY"
	a.onTable(sc, op, KindPolicy, x.PolicyName, x.Table)
	atStatement(op)
	op.Objects = op.Objects[:1] // the policy alone: ALTER POLICY creates nothing on the table
	op.Family = &Policy{Roles: roleNames(x.Roles),
		Reads: append(conditionReads(a, sc, "USING", x.Qual, op.Pos), conditionReads(a, sc, "WITH CHECK", x.WithCheck, op.Pos)...)}
	return nil
}
