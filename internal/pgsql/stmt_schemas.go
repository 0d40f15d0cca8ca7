package pgsql

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The schemas family: CREATE SCHEMA (whose elements are analysed with the schema first on the
// search_path), CREATE and ALTER EXTENSION, CREATE LANGUAGE. No detail of its own.
var schemaStatements = statements{
	{(*pg_query.Node_CreateSchemaStmt)(nil), createSchema},
	{(*pg_query.Node_CreateExtensionStmt)(nil), createExtension},
	{(*pg_query.Node_AlterExtensionStmt)(nil), alterExtension},
	{(*pg_query.Node_CreatePlangStmt)(nil), createLanguage},
}

// global is an object outside schemas (a schema, an extension, a role, a language) at pos.
func global(kind ObjKind, name string, pos finding.Position) Object {
	return Object{Kind: kind, Name: Name{Name: name}, Qualified: true, Pos: pos}
}

func createSchema(a *analyzer, sc *scope, n *pg_query.Node, op *draft, sp span) func() {
	x := n.GetCreateSchemaStmt()
	op.Verb, op.Tag, op.IfNotExists = VerbCreate, "CREATE SCHEMA", x.IfNotExists
	op.Objects = []Object{global(KindSchema, x.Schemaname, op.Pos)}
	if len(x.SchemaElts) == 0 {
		return nil
	}
	return func() {
		saved := a.path
		a.path = []string{x.Schemaname}
		for _, e := range x.SchemaElts {
			a.stmt(&scope{src: sc.src, m: sc.m, ctx: sc.ctx, stmt: sc.stmt, fn: sc.fn, depth: sc.depth}, e, sp.start, sp.end)
		}
		a.path = saved
	}
}

func createExtension(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCreateExtensionStmt()
	op.Verb, op.Tag, op.IfNotExists = VerbCreate, "CREATE EXTENSION", x.IfNotExists
	op.Objects = []Object{global(KindExtension, x.Extname, op.Pos)}
	for _, o := range x.Options {
		if d := o.GetDefElem(); d != nil && d.Defname == "schema" {
			op.Family = &Extension{Schema: d.Arg.GetString_().GetSval()}
		}
	}
	return nil
}

// Extension is the detail of CREATE EXTENSION ... SCHEMA and ALTER EXTENSION ... SET SCHEMA.
type Extension struct {
	// Schema is the schema the statement places the extension in.
	Schema string `json:"schema"`
}

func (*Extension) family() string { return "schemas" }

// Extension returns the schema a CREATE EXTENSION ... SCHEMA or ALTER EXTENSION ... SET SCHEMA
// places its extension in, or nil.
func (o *Op) Extension() *Extension {
	e, _ := o.Family.(*Extension)
	return e
}

func alterExtension(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbAlter, "ALTER EXTENSION"
	op.Objects = []Object{global(KindExtension, n.GetAlterExtensionStmt().Extname, op.Pos)}
	return nil
}

func createLanguage(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetCreatePlangStmt()
	op.Verb, op.Tag, op.OrReplace = VerbCreate, "CREATE LANGUAGE", x.Replace
	op.Objects = []Object{global(KindLanguage, x.Plname, op.Pos)}
	return nil
}
