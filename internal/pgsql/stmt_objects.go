package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The objects family: the statements that act on an object of any kind by name (RENAME, SET
// SCHEMA, OWNER TO, DROP, TRUNCATE, COMMENT ON). No detail of its own.
var objectStatements = statements{
	{(*pg_query.Node_RenameStmt)(nil), rename},
	{(*pg_query.Node_AlterObjectSchemaStmt)(nil), setSchema},
	{(*pg_query.Node_AlterOwnerStmt)(nil), alterOwner},
	{(*pg_query.Node_DropStmt)(nil), drop},
	{(*pg_query.Node_TruncateStmt)(nil), truncate},
	{(*pg_query.Node_CommentStmt)(nil), commentOn},
}

func rename(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetRenameStmt()
	kind := kindOf(x.RenameType)
	op.Verb, op.Tag, op.IfExists = VerbRename, "ALTER "+strings.ToUpper(string(kind))+" RENAME", x.MissingOk
	switch {
	case kind.OnTable() && x.Relation != nil:
		tbl := a.rel(sc, KindTable, x.Relation, op.Pos)
		op.Objects = []Object{{Kind: kind, Name: Name{Name: x.Subname}, Table: tbl.Name, Qualified: tbl.Qualified, Pos: tbl.Pos}}
	case kind == KindSchema:
		op.Objects = []Object{global(kind, x.Subname, op.Pos)}
	default:
		op.Objects = []Object{a.target(sc, kind, x.Relation, x.Object, op.Pos)}
	}
	op.at = op.Objects[0].Pos
	return nil
}

func setSchema(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetAlterObjectSchemaStmt()
	kind := kindOf(x.ObjectType)
	op.Verb, op.Tag, op.IfExists = VerbAlter, "ALTER "+strings.ToUpper(string(kind))+" SET SCHEMA", x.MissingOk
	op.Objects = []Object{a.target(sc, kind, x.Relation, x.Object, op.Pos)}
	op.at = op.Objects[0].Pos
	if kind == KindExtension {
		op.Family = &Extension{Schema: x.Newschema}
	}
	return nil
}

func alterOwner(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetAlterOwnerStmt()
	kind := kindOf(x.ObjectType)
	op.Verb, op.Tag = VerbAlter, "ALTER "+strings.ToUpper(string(kind))+" OWNER"
	op.Objects = []Object{a.target(sc, kind, x.Relation, x.Object, op.Pos)}
	op.at = op.Objects[0].Pos
	return nil
}

func drop(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetDropStmt()
	kind := kindOf(x.RemoveType)
	op.Verb, op.Tag, op.IfExists, op.Concurrently = VerbDrop, "DROP "+strings.ToUpper(string(kind)), x.MissingOk, x.Concurrent
	for _, o := range x.Objects {
		op.Objects = append(op.Objects, a.objOf(sc, kind, o, op.Pos))
	}
	return nil
}

func truncate(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbTruncate, "TRUNCATE"
	for _, r := range n.GetTruncateStmt().Relations {
		op.Objects = append(op.Objects, a.rel(sc, KindTable, r.GetRangeVar(), op.Pos))
	}
	if len(op.Objects) > 0 {
		op.at = op.Objects[0].Pos
	}
	return nil
}

func commentOn(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCommentStmt()
	kind := kindOf(x.Objtype)
	op.Verb, op.Tag = VerbComment, "COMMENT ON "+strings.ToUpper(string(kind))
	op.Objects = []Object{a.objOf(sc, kind, x.Object, op.Pos)}
	return nil
}
