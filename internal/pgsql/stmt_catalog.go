package pgsql

import (
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The catalog family: the statements of the object kinds that are neither relations, types nor
// functions, whose CREATE is not a DefineStmt (CREATE OPERATOR, COLLATION, AGGREGATE and TEXT
// SEARCH CONFIGURATION are, see stmt_types.go): CREATE CAST, CREATE and ALTER STATISTICS, CREATE
// and ALTER EVENT TRIGGER, CREATE and ALTER PUBLICATION, and the ALTERs of operators, collations
// and text search configurations. Each names its object, so that a catalog difference of that
// object points at it (internal/locate); CREATE CAST also has a detail ([Cast]).
var catalogStatements = statements{
	{(*pg_query.Node_CreateCastStmt)(nil), createCast},
	{(*pg_query.Node_CreateStatsStmt)(nil), createStatistics},
	{(*pg_query.Node_AlterStatsStmt)(nil), alterStatistics},
	{(*pg_query.Node_CreateEventTrigStmt)(nil), createEventTrigger},
	{(*pg_query.Node_AlterEventTrigStmt)(nil), alterEventTrigger},
	{(*pg_query.Node_CreatePublicationStmt)(nil), createPublication},
	{(*pg_query.Node_AlterPublicationStmt)(nil), alterPublication},
	{(*pg_query.Node_AlterOperatorStmt)(nil), alterOperator},
	{(*pg_query.Node_AlterCollationStmt)(nil), alterCollation},
	{(*pg_query.Node_AlterTsconfigurationStmt)(nil), alterTSConfig},
}

// Cast describes CREATE CAST: what a reader's conversion of a value of Source to Target runs.
type Cast struct {
	// Source and Target are the types, as [ArgType] renders them.
	Source string `json:"source"`
	Target string `json:"target"`
	// Function is the cast's function (WITH FUNCTION); zero for WITHOUT FUNCTION and WITH INOUT,
	// which run no function of the cast's own.
	Function Name `json:"function,omitzero"`
	// Implicit is AS IMPLICIT, Assignment AS ASSIGNMENT.
	Implicit   bool `json:"implicit,omitempty"`
	Assignment bool `json:"assignment,omitempty"`
}

func (*Cast) family() string { return "catalog" }

// Cast returns the cast a CREATE CAST creates, or nil.
func (o *Op) Cast() *Cast {
	c, _ := o.Family.(*Cast)
	return c
}

func createCast(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCreateCastStmt()
	op.Verb, op.Tag = VerbCreate, "CREATE CAST"
	op.Objects = []Object{castObject(x.Sourcetype, x.Targettype, op.Pos)}
	c := &Cast{Source: ArgType(x.Sourcetype), Target: ArgType(x.Targettype),
		Implicit: x.Context == pg_query.CoercionContext_COERCION_IMPLICIT, Assignment: x.Context == pg_query.CoercionContext_COERCION_ASSIGNMENT}
	if x.Func != nil {
		c.Function = a.withArgs(KindFunction, x.Func, op.Pos).Name
	}
	op.Family = c
	return nil
}

// castObject is the cast from source to target. A cast has no schema: its name is its identity
// as the catalog prints it, "(integer AS mood)", each type by [TypeLabel].
func castObject(source, target *pg_query.TypeName, at finding.Position) Object {
	return Object{Kind: KindCast, Name: Name{Name: "(" + TypeLabel(source) + " AS " + TypeLabel(target) + ")"}, Qualified: true, Pos: at}
}

// TypeLabel renders a type as format_type prints it, without its schema: SQL's names for the
// built-in types ("integer", "character varying"), other names quoted where they need it, "[]"
// for an array; no typmod.
func TypeLabel(t *pg_query.TypeName) string {
	if t == nil {
		return ""
	}
	base, arr := strings.CutSuffix(ArgType(t), "[]")
	if _, builtin := displayTypes[base]; !builtin {
		base = QuoteIdent(base)
	}
	if arr {
		base += "[]"
	}
	return DisplayType(base)
}

func createStatistics(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCreateStatsStmt()
	op.Verb, op.Tag, op.IfNotExists = VerbCreate, "CREATE STATISTICS", x.IfNotExists
	op.Objects = []Object{a.listObj(KindStatistics, strs(x.Defnames), op.Pos)}
	for _, r := range x.Relations {
		if rv := r.GetRangeVar(); rv != nil {
			op.Objects = append(op.Objects, a.rel(sc, KindTable, rv, op.Pos))
		}
	}
	return nil
}

func alterStatistics(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetAlterStatsStmt()
	op.Verb, op.Tag, op.IfExists = VerbAlter, "ALTER STATISTICS", x.MissingOk
	op.Objects = []Object{a.listObj(KindStatistics, strs(x.Defnames), op.Pos)}
	return nil
}

func createEventTrigger(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbCreate, "CREATE EVENT TRIGGER"
	op.Objects = []Object{global(KindEventTrigger, n.GetCreateEventTrigStmt().Trigname, op.Pos)}
	return nil
}

func alterEventTrigger(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbAlter, "ALTER EVENT TRIGGER"
	op.Objects = []Object{global(KindEventTrigger, n.GetAlterEventTrigStmt().Trigname, op.Pos)}
	return nil
}

// createPublication names the publication, then the tables it publishes (FOR TABLE).
func createPublication(a *analyzer, sc *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCreatePublicationStmt()
	op.Verb, op.Tag = VerbCreate, "CREATE PUBLICATION"
	op.Objects = []Object{global(KindPublication, x.Pubname, op.Pos)}
	for _, o := range x.Pubobjects {
		if t := o.GetPublicationObjSpec().GetPubtable(); t != nil && t.Relation != nil {
			op.Objects = append(op.Objects, a.rel(sc, KindTable, t.Relation, op.Pos))
		}
	}
	return nil
}

// alterPublication names the publication only: adding a table to a publication changes the
// publication, not the table.
func alterPublication(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbAlter, "ALTER PUBLICATION"
	op.Objects = []Object{global(KindPublication, n.GetAlterPublicationStmt().Pubname, op.Pos)}
	return nil
}

func alterOperator(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbAlter, "ALTER OPERATOR"
	op.Objects = []Object{a.withArgs(KindOperator, n.GetAlterOperatorStmt().Opername, op.Pos)}
	return nil
}

func alterCollation(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbAlter, "ALTER COLLATION"
	op.Objects = []Object{a.listObj(KindCollation, strs(n.GetAlterCollationStmt().Collname), op.Pos)}
	return nil
}

func alterTSConfig(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbAlter, "ALTER TEXT SEARCH CONFIGURATION"
	op.Objects = []Object{a.listObj(KindTSConfig, strs(n.GetAlterTsconfigurationStmt().Cfgname), op.Pos)}
	return nil
}
