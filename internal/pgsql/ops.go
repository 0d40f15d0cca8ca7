package pgsql

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"reflect"
	"strings"
)

// Context says where an [Op] runs: at the top level of the file, or inside a function body, a DO
// block or a string passed to EXECUTE.
type Context int

// The contexts of an [Op].
const (
	// TopLevel is a statement of the file itself.
	TopLevel Context = iota
	// InFunction is a statement inside a function body (PL/pgSQL or SQL).
	InFunction
	// InDo is a statement inside a DO block.
	InDo
	// InExecute is a statement inside a string literal passed to EXECUTE.
	InExecute
	// InJob is a statement of a pg_cron job's command, a string literal passed to
	// cron.schedule (or schedule_in_database, alter_job): it runs later, as the job ([Job]).
	InJob
)

// String names the context as messages use it.
func (c Context) String() string {
	switch c {
	case InFunction:
		return "in a function body"
	case InDo:
		return "in a DO block"
	case InExecute:
		return "in dynamic SQL"
	case InJob:
		return "in a pg_cron job's command"
	}
	return "at top level"
}

// Verb is what a statement does to its target objects.
type Verb string

// The verbs of an [Op].
const (
	VerbCreate      Verb = "create"
	VerbAlter       Verb = "alter"
	VerbDrop        Verb = "drop"
	VerbRename      Verb = "rename"
	VerbTruncate    Verb = "truncate"
	VerbComment     Verb = "comment"
	VerbGrant       Verb = "grant"
	VerbRevoke      Verb = "revoke"
	VerbInsert      Verb = "insert"
	VerbUpdate      Verb = "update"
	VerbDelete      Verb = "delete"
	VerbSelect      Verb = "select"
	VerbNotify      Verb = "notify"
	VerbSet         Verb = "set"
	VerbBegin       Verb = "begin"
	VerbCommit      Verb = "commit"
	VerbRollback    Verb = "rollback"
	VerbDo          Verb = "do"
	VerbCopy        Verb = "copy"
	VerbAlterSystem Verb = "alter system"
	VerbExecute     Verb = "execute" // dynamic EXECUTE in PL/pgSQL
	VerbCall        Verb = "call"
	VerbOther       Verb = "other"
)

// ObjKind is the kind of a database object.
type ObjKind string

// The object kinds lint distinguishes. Other kinds use the lower-case PostgreSQL object type name.
const (
	KindTable   ObjKind = "table"
	KindView    ObjKind = "view"
	KindMatView ObjKind = "materialized view"
	// KindForeignTable is a foreign table: a relation with a table's privileges, no RLS and
	// no policies.
	KindForeignTable ObjKind = "foreign table"
	KindIndex        ObjKind = "index"
	KindSequence     ObjKind = "sequence"
	KindFunction     ObjKind = "function"
	KindProcedure    ObjKind = "procedure"
	KindSchema       ObjKind = "schema"
	KindExtension    ObjKind = "extension"
	KindPolicy       ObjKind = "policy"
	KindTrigger      ObjKind = "trigger"
	KindRule         ObjKind = "rule"
	KindType         ObjKind = "type"
	KindColumn       ObjKind = "column"
	KindConstraint   ObjKind = "constraint"
	KindLanguage     ObjKind = "language"
	KindRole         ObjKind = "role"
	// The kinds of the catalog family (stmt_catalog.go) and of DefineStmt.
	KindOperator     ObjKind = "operator"
	KindCast         ObjKind = "cast"
	KindCollation    ObjKind = "collation"
	KindStatistics   ObjKind = "statistics"
	KindTSConfig     ObjKind = "text search configuration"
	KindEventTrigger ObjKind = "event trigger"
	KindPublication  ObjKind = "publication"
)

// OnTable reports whether objects of kind k are named within a table (policy, trigger, rule,
// column, constraint), so that their identity includes [Object.Table].
func (k ObjKind) OnTable() bool {
	switch k {
	case KindPolicy, KindTrigger, KindRule, KindColumn, KindConstraint:
		return true
	}
	return false
}

// Name is a possibly schema-qualified object name, folded as PostgreSQL folds it: unquoted
// identifiers in lower case, quoted ones as written. Schema is empty only for objects that live
// outside schemas (schemas, extensions, roles, languages) and for objects named within a table.
type Name struct {
	Schema string `json:"schema,omitempty"`
	Name   string `json:"name"`
}

// String renders the name as SQL would need it, quoting identifiers that are not plain lower case.
func (n Name) String() string {
	if n.Schema == "" {
		return QuoteIdent(n.Name)
	}
	return QuoteIdent(n.Schema) + "." + QuoteIdent(n.Name)
}

// QuoteIdent quotes s as an SQL identifier when it is not a plain lower-case identifier.
func QuoteIdent(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '$')) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// Object identifies a database object that a statement creates or acts on.
type Object struct {
	Kind ObjKind `json:"kind"`
	// Name is the object's name. For objects named within a table ([ObjKind.OnTable]) Name.Schema
	// is empty and Table is set; an index's Name carries its table's schema.
	Name Name `json:"name"`
	// Table is the table a policy, trigger, rule, column, constraint or index belongs to.
	Table Name `json:"table,omitzero"`
	// Qualified is false when the SQL did not qualify the name and its schema was resolved through
	// the search_path in effect (see [Op.SearchPath]).
	Qualified bool `json:"qualified"`
	// Pos is where the name appears, when the parser records it; else the statement's position.
	Pos finding.Position `json:"pos"`
	// Args are a function's or procedure's identity argument types ([ArgType]: no schema, no
	// typmod, "int4" for integer), when the statement gives an argument list (HasArgs): CREATE
	// FUNCTION always does, GRANT ... ON FUNCTION f without parentheses does not.
	Args    []string `json:"args,omitempty"`
	HasArgs bool     `json:"has_args,omitempty"`
}

// String renders the object as "kind name" (e.g. "table public.thoughts",
// "policy p on public.t").
func (o Object) String() string {
	s := string(o.Kind) + " " + o.Name.String()
	switch o.Kind {
	case KindCast: // its name is its identity, "(integer AS mood)", not an identifier
		s = string(o.Kind) + " " + o.Name.Name
	case KindOperator: // made of symbols, never quoted: "operator public.==="
		s = string(o.Kind) + " " + QuoteIdent(o.Name.Schema) + "." + o.Name.Name
	}
	if o.Kind.OnTable() && o.Table.Name != "" {
		s += " on " + o.Table.String()
	}
	return s
}

// Label renders the object as [Object.String] does, with a function's argument types as
// PostgreSQL writes identity arguments: "function public.upsert_thought(text, jsonb)".
func (o Object) Label() string {
	if !o.HasArgs {
		return o.String()
	}
	return o.String() + o.ArgList()
}

// ShortLabel is [Object.Label] for a message, a long argument list shortened to its count
// ([finding.ShortIdentity]): "function public.f(14 arguments)"; the finding's Object carries
// the full Label.
func (o Object) ShortLabel() string { return finding.ShortIdentity(o.Label()) }

// ShortSignature is the name and argument list of a function as [Object.ShortLabel] shortens
// it, without the kind: "public.f(text)".
func (o Object) ShortSignature() string {
	return strings.TrimPrefix(o.ShortLabel(), string(o.Kind)+" ")
}

// ArgList renders a function's argument types in parentheses, "(text, integer)", with SQL's
// names for the built-in types; "" when the statement gave no argument list.
func (o Object) ArgList() string {
	if !o.HasArgs {
		return ""
	}
	names := make([]string, len(o.Args))
	for i, a := range o.Args {
		names[i] = DisplayType(a)
	}
	return "(" + strings.Join(names, ", ") + ")"
}

// SameArgs reports whether o and p may name the same function: their names are compared by the
// caller; here, either gives no argument list or both give the same types.
func (o Object) SameArgs(p Object) bool {
	if !o.HasArgs || !p.HasArgs {
		return true
	}
	if len(o.Args) != len(p.Args) {
		return false
	}
	for i := range o.Args {
		if o.Args[i] != p.Args[i] {
			return false
		}
	}
	return true
}

// Key is a comparable identity of the object, ignoring where it appears.
type Key struct {
	Kind  ObjKind
	Name  Name
	Table Name
}

// Key returns the object's identity. Functions and procedures share one kind, and so do tables
// and the relations that share their namespace only where lint needs it (it does not).
func (o Object) Key() Key {
	k := o.Kind
	if k == KindProcedure {
		k = KindFunction
	}
	return Key{Kind: k, Name: o.Name, Table: o.Table}
}

// Call is a function call in an expression.
type Call struct {
	// Name is the called function, lower case as folded, schema-qualified only if the SQL was.
	Name Name             `json:"name"`
	Pos  finding.Position `json:"pos"`
	// Args is the number of arguments.
	Args int `json:"args,omitempty"`
	// Literal is the value of the argument named url (url => '...'), else of the first
	// argument, when it is a string constant (cast or not): the destination of net.http_post,
	// the sequence setval sets. "" when it is anything else.
	Literal string `json:"literal,omitempty"`
}

// ValueRead is one of SQL's value functions in a statement: its name as SQL writes it, lower
// case ("session_user", "current_date"), and its position.
type ValueRead struct {
	Name string           `json:"name"`
	Pos  finding.Position `json:"pos"`
}

// Op is one SQL statement as lint sees it: a top-level statement of the file or a statement
// inside a function body, a DO block or a literal EXECUTE string, with its positions mapped back
// to the file.
//
// An Op has what every statement has (position, verb, tag) and a [Detail] with what most have
// (context, search path, objects, calls, guards), plus one typed detail per statement family
// ([Detail.Family]: [*AlterTable], [*CreateTable], [*Function], [*Grant], [*Policy], [*DML],
// [*Setting], [*Notify], [*Copy], [*Dynamic]), each read through its accessor ([Op.Grant], ...). Each
// family's analysis, detail type and accessor live in a file of their own (stmt_*.go).
//
// A file of 4 MiB can hold 400,000 statements, so an Op keeps what every statement has and
// points at its Detail, whose fields read as the Op's own (op.Objects, op.IfExists).
type Op struct {
	// Stmt is the index of the enclosing top-level statement in [File.Stmts].
	Stmt int  `json:"stmt"`
	Verb Verb `json:"verb"`
	// Tag is a short human name of the statement, as PostgreSQL's command tags: "CREATE TABLE".
	Tag string `json:"tag"`
	// Pos is the start of the statement. [Op.At] is the clause a finding should point at.
	Pos finding.Position `json:"pos"`
	// Start is the statement's byte offset in the file.
	Start int `json:"start"`
	// Detail is never nil. Ops that have no detail (SELECT 1 at top level) share one empty
	// Detail, which is read-only: only [Parse] writes details, each into a Detail of the op's
	// own.
	*Detail
}

// Detail is the part of an [Op] that only some statements have: a top-level statement that
// names no object, calls no function and has no guard or family detail has none.
type Detail struct {
	// Context is where the statement runs (TopLevel, the zero value, for an op without detail).
	Context Context `json:"context"`
	// SearchPath is the search_path used to resolve unqualified names in the statement; nil for
	// an op without detail, which names nothing to resolve.
	SearchPath []string `json:"search_path"`
	// at is [Op.At] when it is not Pos.
	at finding.Position
	// Function is the function whose body holds the statement (Context == InFunction).
	Function Name `json:"function,omitzero"`
	// Objects are the objects the statement creates or acts on; the first is the main one.
	Objects []Object `json:"objects,omitempty"`
	// Calls are the function calls in the statement's expressions.
	Calls []Call `json:"calls,omitempty"`
	// Values are SQL's value functions in the statement's expressions (SESSION_USER,
	// CURRENT_DATE, ...).
	Values []ValueRead `json:"values,omitempty"`
	// Implicit are objects the statement creates without naming them: the sequence of a serial
	// or identity column.
	Implicit []Object `json:"implicit,omitempty"`
	Guards
	// Settings are the run-time settings the statement changes, in every form ([SettingChange]).
	Settings []SettingChange `json:"settings,omitempty"`
	// Family is the statement family's own detail (nil for a family without one).
	Family Family `json:"family,omitempty"`
}

// Guards are the clauses that make a statement safe to run again, or not in a transaction.
type Guards struct {
	IfExists     bool `json:"if_exists,omitempty"`
	IfNotExists  bool `json:"if_not_exists,omitempty"`
	OrReplace    bool `json:"or_replace,omitempty"`
	Concurrently bool `json:"concurrently,omitempty"`
}

// Family is the typed detail of one statement family.
type Family interface {
	family() string
}

// noDetail is the Detail of every op that has none.
var noDetail Detail

// draft is an op under construction: the Op, and its Detail by value, which [draft.finish]
// stores in the Op only if it is not empty. Selectors on a draft reach the Detail's fields
// before the Op's.
type draft struct {
	Op
	Detail
}

// finish returns the op, with its own copy of the detail, or the shared empty one.
func (d *draft) finish() Op {
	if d.at == d.Pos {
		d.at = finding.Position{}
	}
	op := d.Op
	op.Detail = &noDetail
	// The search_path matters only to an op with something else to resolve.
	path := d.SearchPath
	d.SearchPath = nil
	if !reflect.ValueOf(&d.Detail).Elem().IsZero() {
		detail := d.Detail
		detail.SearchPath = path
		op.Detail = &detail
	}
	return op
}

// At returns the position of the clause a finding should point at (the target name, the
// offending subcommand), or Pos when the parser records nothing better.
func (o *Op) At() finding.Position {
	if o.at != (finding.Position{}) {
		return o.at
	}
	return o.Pos
}

// TableAt returns the position of the table a statement attaches its object to (a policy, a
// trigger or a rule: the ON clause), or [Op.At] for any other statement.
func (o *Op) TableAt() finding.Position {
	if len(o.Objects) == 2 && o.Objects[1].Kind == KindTable && o.Objects[0].Table == o.Objects[1].Name && o.Objects[1].Pos.Line > 0 {
		return o.Objects[1].Pos
	}
	return o.At()
}

// Object returns the op's main object, or the zero Object.
func (o *Op) Object() Object {
	if len(o.Objects) == 0 {
		return Object{}
	}
	return o.Objects[0]
}

// VectorType is a pgvector type with a dimension: vector(N), halfvec(N) or sparsevec(N).
type VectorType struct {
	Type string `json:"type"`
	Dim  int    `json:"dim"`
	// Pos is the position of the dimension.
	Pos finding.Position `json:"pos"`
}

// Problem is something in the file that pgsql could not analyse: a function body or DO block
// that does not compile, a dynamic SQL string that does not parse.
type Problem struct {
	Pos finding.Position `json:"pos"`
	Msg string           `json:"msg"`
	// Syntax is set when PostgreSQL would reject the file too (a syntax error in a body).
	Syntax bool `json:"syntax"`
	// TooComplex is set when the SQL nests deeper than [MaxNesting] and was not parsed.
	TooComplex bool `json:"too_complex,omitempty"`
}

// MetaCommand is a psql meta-command (\i, \set, ...) or a COPY ... FROM STDIN data block: not
// SQL, so the server would reject it. [Parse] blanks them out and records them here.
type MetaCommand struct {
	Pos  finding.Position `json:"pos"`
	Text string           `json:"text"`
}

// Comment is an SQL comment (-- or /* */) in the file.
type Comment struct {
	Start, End int
	Pos        finding.Position
	// Text is the comment as written, markers included.
	Text string
}
