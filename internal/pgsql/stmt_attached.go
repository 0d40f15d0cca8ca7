package pgsql

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The attached family: what is created on a table (CREATE INDEX, CREATE TRIGGER, CREATE RULE)
// and REINDEX. Each points at its table; no detail of its own.
var attachedStatements = statements{
	{(*pg_query.Node_IndexStmt)(nil), createIndex},
	{(*pg_query.Node_CreateTrigStmt)(nil), createTrigger},
	{(*pg_query.Node_RuleStmt)(nil), createRule},
	{(*pg_query.Node_ReindexStmt)(nil), reindex},
}

func createIndex(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetIndexStmt()
	op.Verb, op.Tag, op.IfNotExists, op.Concurrently = VerbCreate, "CREATE INDEX", x.IfNotExists, x.Concurrent
	tbl := a.rel(sc, KindTable, x.Relation, op.Pos)
	op.Objects = []Object{{Kind: KindIndex, Name: Name{tbl.Name.Schema, x.Idxname}, Table: tbl.Name, Qualified: tbl.Qualified, Pos: tbl.Pos}, tbl}
	op.at = tbl.Pos
	return nil
}

func createTrigger(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCreateTrigStmt()
	op.Verb, op.Tag, op.OrReplace = VerbCreate, "CREATE TRIGGER", x.Replace
	a.onTable(sc, op, KindTrigger, x.Trigname, x.Relation)
	op.Family = a.triggerOf(x)
	return nil
}

func createRule(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetRuleStmt()
	op.Verb, op.Tag, op.OrReplace = VerbCreate, "CREATE RULE", x.Replace
	a.onTable(sc, op, KindRule, x.Rulename, x.Relation)
	return nil
}

// onTable sets the objects of a statement that creates the object name of kind on the table
// rv: the object, then the table; the op points at the table.
func (a *analyzer) onTable(sc *scope, op *draft, kind ObjKind, name string, rv *pg_query.RangeVar) {
	tbl := a.rel(sc, KindTable, rv, op.Pos)
	op.Objects = []Object{{Kind: kind, Name: Name{Name: name}, Table: tbl.Name, Qualified: tbl.Qualified, Pos: tbl.Pos}, tbl}
	op.at = tbl.Pos
}

func reindex(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Tag = "REINDEX"
	for _, p := range n.GetReindexStmt().Params {
		if d := p.GetDefElem(); d != nil && d.Defname == "concurrently" {
			op.Concurrently = true
		}
	}
	return nil
}
