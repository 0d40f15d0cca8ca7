package pgsql

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The data family: DML (INSERT, UPDATE, DELETE, with [DML]), CALL, and COPY ([Copy]).
var dataStatements = statements{
	{(*pg_query.Node_DeleteStmt)(nil), deleteStmt},
	{(*pg_query.Node_UpdateStmt)(nil), updateStmt},
	{(*pg_query.Node_InsertStmt)(nil), insertStmt},
	{(*pg_query.Node_CallStmt)(nil), callStmt},
	{(*pg_query.Node_CopyStmt)(nil), copyStmt},
}

// DML is the detail of UPDATE and DELETE.
type DML struct {
	// HasWhere is set for UPDATE and DELETE with a WHERE clause.
	HasWhere bool `json:"has_where,omitempty"`
	// Sets are the columns an INSERT lists or an UPDATE (or an INSERT's ON CONFLICT DO
	// UPDATE) assigns, as written (folded).
	Sets []string `json:"sets,omitempty"`
}

func (*DML) family() string { return "data" }

// Sets returns the columns an INSERT or UPDATE writes by name (see [DML.Sets]).
func (o *Op) Sets() []string {
	if d, ok := o.Family.(*DML); ok {
		return d.Sets
	}
	return nil
}

// HasWhere reports whether an UPDATE or DELETE has a WHERE clause.
func (o *Op) HasWhere() bool {
	d, ok := o.Family.(*DML)
	return ok && d.HasWhere
}

// Copy is the detail of COPY.
type Copy struct {
	From    bool   `json:"from"`
	Program bool   `json:"program"`
	File    string `json:"file,omitempty"` // server-side file or program; empty for STDIN/STDOUT
}

func (*Copy) family() string { return "data" }

// Copy returns the detail of a COPY, or nil.
func (o *Op) Copy() *Copy {
	c, _ := o.Family.(*Copy)
	return c
}

func deleteStmt(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetDeleteStmt()
	op.Verb, op.Tag, op.Family = VerbDelete, "DELETE", &DML{HasWhere: x.WhereClause != nil}
	op.Objects = []Object{a.rel(sc, KindTable, x.Relation, op.Pos)}
	return nil
}

func updateStmt(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetUpdateStmt()
	op.Verb, op.Tag, op.Family = VerbUpdate, "UPDATE", &DML{HasWhere: x.WhereClause != nil, Sets: targetNames(x.TargetList)}
	op.Objects = []Object{a.rel(sc, KindTable, x.Relation, op.Pos)}
	return nil
}

func insertStmt(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetInsertStmt()
	op.Verb, op.Tag = VerbInsert, "INSERT"
	op.Objects = []Object{a.rel(sc, KindTable, x.Relation, op.Pos)}
	sets := targetNames(x.Cols)
	if oc := x.OnConflictClause; oc != nil {
		sets = append(sets, targetNames(oc.TargetList)...)
	}
	if len(sets) > 0 {
		op.Family = &DML{Sets: sets}
	}
	return nil
}

// targetNames are the column names of a list of ResTarget nodes (an INSERT's columns, an
// UPDATE's SET list).
func targetNames(nodes []*pg_query.Node) []string {
	var out []string
	for _, n := range nodes {
		if rt := n.GetResTarget(); rt != nil && rt.Name != "" {
			out = append(out, rt.Name)
		}
	}
	return out
}

func callStmt(_ *analyzer, _ *scope, _ *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbCall, "CALL"
	return nil
}

func copyStmt(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCopyStmt()
	op.Verb, op.Tag = VerbCopy, "COPY"
	op.Family = &Copy{From: x.IsFrom, Program: x.IsProgram, File: x.Filename}
	if x.Relation != nil {
		op.Objects = []Object{a.rel(sc, KindTable, x.Relation, op.Pos)}
	}
	return nil
}
