package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The types family: CREATE TYPE (composite, enum, range), CREATE DOMAIN, the CREATE statements
// of DefineStmt (aggregates, operators, collations, ...) and ALTER TYPE ... ADD VALUE. No detail
// of its own.
var typeStatements = statements{
	{(*pg_query.Node_CompositeTypeStmt)(nil), createCompositeType},
	{(*pg_query.Node_CreateEnumStmt)(nil), createEnum},
	{(*pg_query.Node_CreateRangeStmt)(nil), createRange},
	{(*pg_query.Node_CreateDomainStmt)(nil), createDomain},
	{(*pg_query.Node_DefineStmt)(nil), define},
	{(*pg_query.Node_AlterEnumStmt)(nil), alterEnum},
}

func createCompositeType(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbCreate, "CREATE TYPE"
	op.Objects = []Object{a.rel(sc, KindType, n.GetCompositeTypeStmt().Typevar, op.Pos)}
	return nil
}

func createEnum(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbCreate, "CREATE TYPE"
	op.Objects = []Object{a.listObj(KindType, strs(n.GetCreateEnumStmt().TypeName), op.Pos)}
	return nil
}

func createRange(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbCreate, "CREATE TYPE"
	op.Objects = []Object{a.listObj(KindType, strs(n.GetCreateRangeStmt().TypeName), op.Pos)}
	return nil
}

func createDomain(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbCreate, "CREATE DOMAIN"
	op.Objects = []Object{a.listObj(KindType, strs(n.GetCreateDomainStmt().Domainname), op.Pos)}
	return nil
}

func define(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetDefineStmt()
	kind := kindOf(x.Kind)
	op.Verb, op.Tag, op.IfNotExists, op.OrReplace = VerbCreate, "CREATE "+strings.ToUpper(string(kind)), x.IfNotExists, x.Replace
	op.Objects = []Object{a.listObj(kind, strs(x.Defnames), op.Pos)}
	return nil
}

func alterEnum(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbAlter, "ALTER TYPE"
	op.Objects = []Object{a.listObj(KindType, strs(n.GetAlterEnumStmt().TypeName), op.Pos)}
	return nil
}
