package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// The tables family: CREATE TABLE (and AS, and SELECT INTO), CREATE VIEW and CREATE MATERIALIZED
// VIEW, sequences, and ALTER TABLE with its subcommands ([AlterTable]).
var tableStatements = statements{
	{(*pg_query.Node_CreateStmt)(nil), createTable},
	{(*pg_query.Node_CreateForeignTableStmt)(nil), createForeignTable},
	{(*pg_query.Node_CreateTableAsStmt)(nil), createTableAs},
	{(*pg_query.Node_SelectStmt)(nil), selectStmt},
	{(*pg_query.Node_ViewStmt)(nil), createView},
	{(*pg_query.Node_CreateSeqStmt)(nil), createSequence},
	{(*pg_query.Node_AlterSeqStmt)(nil), alterSequence},
	{(*pg_query.Node_AlterTableStmt)(nil), alterTable},
}

// AlterTable is the detail of ALTER TABLE (and ALTER VIEW, ALTER INDEX, ... on a relation).
type AlterTable struct {
	Cmds []AlterCmd `json:"cmds"`
}

func (*AlterTable) family() string { return "tables" }

// AlterCmds returns the subcommands of an ALTER TABLE, or nil.
func (o *Op) AlterCmds() []AlterCmd {
	if t, ok := o.Family.(*AlterTable); ok {
		return t.Cmds
	}
	return nil
}

// AlterCmd is one subcommand of ALTER TABLE.
type AlterCmd struct {
	// Action is PostgreSQL's name of the subcommand without its AT_ prefix: "AddColumn",
	// "DropColumn", "AlterColumnType", "AddConstraint", "DropConstraint", "EnableRowSecurity",
	// "ForceRowSecurity", "ChangeOwner", ...
	Action string `json:"action"`
	// Name is the column or constraint concerned, if any.
	Name string `json:"name,omitempty"`
	// IfExists and IfNotExists are the subcommand's own guards (DROP COLUMN IF EXISTS,
	// ADD COLUMN IF NOT EXISTS).
	IfExists    bool `json:"if_exists,omitempty"`
	IfNotExists bool `json:"if_not_exists,omitempty"`
	// Pos is the subcommand's column or constraint definition when the parser records it, else
	// the table name.
	Pos finding.Position `json:"pos"`
}

// CreateTable is the detail of CREATE TABLE: where its columns and named constraints are
// defined, so that a finding about one points at its line.
type CreateTable struct {
	// Elements are the column definitions and the named constraints (table constraints, and
	// column constraints with a name), in order; Action is "Column" or "Constraint".
	Elements []AlterCmd `json:"elements"`
}

func (*CreateTable) family() string { return "tables" }

// CreateTable returns the detail of a CREATE TABLE, or nil.
func (o *Op) CreateTable() *CreateTable {
	t, _ := o.Family.(*CreateTable)
	return t
}

func createTable(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCreateStmt()
	op.Verb, op.Tag, op.IfNotExists = VerbCreate, "CREATE TABLE", x.IfNotExists
	tbl := a.rel(sc, KindTable, x.Relation, op.Pos)
	op.Objects = []Object{tbl}
	t := &CreateTable{}
	at := func(loc int32) finding.Position {
		if loc >= 0 {
			return a.pos(sc, int(loc))
		}
		return tbl.Pos
	}
	for _, e := range x.TableElts {
		if cd := e.GetColumnDef(); cd != nil {
			op.Implicit = append(op.Implicit, ownedSequence(tbl, cd)...)
			t.Elements = append(t.Elements, AlterCmd{Action: "Column", Name: cd.Colname, Pos: at(cd.Location)})
			for _, c := range cd.Constraints {
				if con := c.GetConstraint(); con != nil && con.Conname != "" {
					t.Elements = append(t.Elements, AlterCmd{Action: "Constraint", Name: con.Conname, Pos: at(con.Location)})
				}
			}
		}
		if con := e.GetConstraint(); con != nil && con.Conname != "" {
			t.Elements = append(t.Elements, AlterCmd{Action: "Constraint", Name: con.Conname, Pos: at(con.Location)})
		}
	}
	if len(t.Elements) > 0 {
		op.Family = t
	}
	return nil
}

func createForeignTable(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCreateForeignTableStmt().GetBaseStmt()
	op.Verb, op.Tag, op.IfNotExists = VerbCreate, "CREATE FOREIGN TABLE", x.GetIfNotExists()
	op.Objects = []Object{a.rel(sc, KindForeignTable, x.GetRelation(), op.Pos)}
	return nil
}

var serialTypes = map[string]bool{"serial": true, "serial4": true, "bigserial": true, "serial8": true, "smallserial": true, "serial2": true}

// ownedSequence returns the sequence a serial or identity column definition creates, named as
// PostgreSQL names it (table_column_seq, each part shortened to fit 63 bytes), or nothing.
func ownedSequence(tbl Object, cd *pg_query.ColumnDef) []Object {
	implied := false
	if names := strs(cd.GetTypeName().GetNames()); len(names) > 0 && serialTypes[names[len(names)-1]] {
		implied = true
	}
	for _, c := range cd.Constraints {
		if con := c.GetConstraint(); con != nil && con.Contype == pg_query.ConstrType_CONSTR_IDENTITY {
			implied = true
		}
	}
	if !implied || tbl.Name.Name == "" {
		return nil
	}
	t, col := tbl.Name.Name, cd.Colname
	for len(t)+len(col)+len("__seq") > 63 {
		if len(t) >= len(col) {
			t = t[:len(t)-1]
		} else {
			col = col[:len(col)-1]
		}
	}
	seq := tbl
	seq.Kind, seq.Name.Name = KindSequence, t+"_"+col+"_seq"
	return []Object{seq}
}

func createTableAs(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCreateTableAsStmt()
	kind := KindTable
	op.Tag = "CREATE TABLE AS"
	if x.Objtype == pg_query.ObjectType_OBJECT_MATVIEW {
		kind, op.Tag = KindMatView, "CREATE MATERIALIZED VIEW"
	}
	op.Verb, op.IfNotExists = VerbCreate, x.IfNotExists
	if x.Into != nil {
		op.Objects = []Object{a.rel(sc, kind, x.Into.Rel, op.Pos)}
	}
	return nil
}

func selectStmt(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbSelect, "SELECT"
	if into := n.GetSelectStmt().IntoClause; into != nil {
		op.Verb, op.Tag = VerbCreate, "SELECT INTO"
		op.Objects = []Object{a.rel(sc, KindTable, into.Rel, op.Pos)}
	}
	return nil
}

func createView(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetViewStmt()
	op.Verb, op.Tag, op.OrReplace = VerbCreate, "CREATE VIEW", x.Replace
	op.Objects = []Object{a.rel(sc, KindView, x.View, op.Pos)}
	return nil
}

func createSequence(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCreateSeqStmt()
	op.Verb, op.Tag, op.IfNotExists = VerbCreate, "CREATE SEQUENCE", x.IfNotExists
	op.Objects = []Object{a.rel(sc, KindSequence, x.Sequence, op.Pos)}
	return nil
}

func alterSequence(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetAlterSeqStmt()
	op.Verb, op.Tag, op.IfExists = VerbAlter, "ALTER SEQUENCE", x.MissingOk
	op.Objects = []Object{a.rel(sc, KindSequence, x.Sequence, op.Pos)}
	return nil
}

func alterTable(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetAlterTableStmt()
	kind := kindOf(x.Objtype)
	op.Verb, op.Tag, op.IfExists = VerbAlter, "ALTER "+strings.ToUpper(string(kind)), x.MissingOk
	tbl := a.rel(sc, kind, x.Relation, op.Pos)
	op.Objects = []Object{tbl}
	op.at = tbl.Pos
	t := &AlterTable{}
	for _, c := range x.Cmds {
		if ac := c.GetAlterTableCmd(); ac != nil {
			t.Cmds = append(t.Cmds, a.alterCmd(sc, ac, tbl.Pos))
			if cd := ac.Def.GetColumnDef(); cd != nil && ac.Subtype == pg_query.AlterTableType_AT_AddColumn {
				op.Implicit = append(op.Implicit, ownedSequence(tbl, cd)...)
			}
		}
	}
	if len(t.Cmds) > 0 {
		op.Family = t
	}
	return nil
}

// alterCmd is one ALTER TABLE subcommand, at its column or constraint definition (else at).
func (a *analyzer) alterCmd(sc *scope, ac *pg_query.AlterTableCmd, at finding.Position) AlterCmd {
	cmd := AlterCmd{Action: strings.TrimPrefix(ac.Subtype.String(), "AT_"), Name: ac.Name, Pos: at}
	if ac.Subtype == pg_query.AlterTableType_AT_AddColumn {
		cmd.IfNotExists = ac.MissingOk
	} else {
		cmd.IfExists = ac.MissingOk
	}
	if cd := ac.Def.GetColumnDef(); cd != nil {
		cmd.Name = cd.Colname
		if cd.Location >= 0 {
			cmd.Pos = a.pos(sc, int(cd.Location))
		}
	}
	if con := ac.Def.GetConstraint(); con != nil {
		if cmd.Name == "" {
			cmd.Name = con.Conname
		}
		if con.Location >= 0 {
			cmd.Pos = a.pos(sc, int(con.Location))
		}
	}
	return cmd
}
