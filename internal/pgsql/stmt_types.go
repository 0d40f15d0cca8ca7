package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The types family: CREATE TYPE (composite, enum, range), CREATE DOMAIN, the CREATE statements
// of DefineStmt (aggregates, operators, collations, ...) and ALTER TYPE ... ADD VALUE. An
// aggregate's object has its identity argument types, and an operator's its operand types (the
// right one alone for a prefix operator), as a function's has.
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
	obj := a.listObj(kind, strs(x.Defnames), op.Pos)
	switch x.Kind {
	case pg_query.ObjectType_OBJECT_AGGREGATE:
		obj.HasArgs, obj.Args = true, aggregateArgs(x)
	case pg_query.ObjectType_OBJECT_OPERATOR:
		obj.HasArgs, obj.Args = true, operatorArgs(x.Definition)
	}
	op.Objects = []Object{obj}
	return nil
}

// aggregateArgs returns a CREATE AGGREGATE's identity argument types: its direct and aggregated
// arguments, or the old syntax's basetype ("ANY" for count(*)-like aggregates is none).
func aggregateArgs(x *pg_query.DefineStmt) []string {
	if !x.Oldstyle {
		if len(x.Args) > 0 && x.Args[0].GetList() != nil {
			return identityArgs(x.Args[0].GetList().Items)
		}
		return []string{}
	}
	for _, d := range x.Definition {
		if e := d.GetDefElem(); e != nil && strings.EqualFold(e.Defname, "basetype") {
			if t := e.Arg.GetTypeName(); t != nil && ArgType(t) != "any" {
				return []string{ArgType(t)}
			}
		}
	}
	return []string{}
}

// operatorArgs returns a CREATE OPERATOR's operand types: left and right, or right alone for a
// prefix operator.
func operatorArgs(def []*pg_query.Node) []string {
	var left, right string
	for _, d := range def {
		e := d.GetDefElem()
		if e == nil || e.Arg.GetTypeName() == nil {
			continue
		}
		switch strings.ToLower(e.Defname) {
		case "leftarg":
			left = ArgType(e.Arg.GetTypeName())
		case "rightarg":
			right = ArgType(e.Arg.GetTypeName())
		}
	}
	if left == "" {
		return []string{right}
	}
	return []string{left, right}
}

func alterEnum(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbAlter, "ALTER TYPE"
	op.Objects = []Object{a.listObj(KindType, strs(n.GetAlterEnumStmt().TypeName), op.Pos)}
	return nil
}
