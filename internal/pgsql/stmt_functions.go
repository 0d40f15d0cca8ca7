package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// The functions family: CREATE FUNCTION and CREATE PROCEDURE (whose SQL or PL/pgSQL bodies are
// analysed as statements of their own) and ALTER FUNCTION ... SET search_path ([Function]).
var functionStatements = statements{
	{(*pg_query.Node_CreateFunctionStmt)(nil), createFunction},
	{(*pg_query.Node_AlterFunctionStmt)(nil), alterFunction},
}

// Function describes CREATE FUNCTION or CREATE PROCEDURE (or the search_path ALTER FUNCTION
// sets).
type Function struct {
	Language        string `json:"language"`
	SecurityDefiner bool   `json:"security_definer"`
	// SearchPath is the function's pinned search_path (SET search_path = ...), nil if not pinned.
	SearchPath     []string `json:"search_path"`
	PinnedPath     bool     `json:"pinned_path"`
	ReturnsTrigger bool     `json:"returns_trigger"`
	Procedure      bool     `json:"procedure"`
	// Body is the function's source text (the AS string), empty for BEGIN ATOMIC bodies.
	Body string `json:"body,omitempty"`
	// BodyPos is where the body starts in the file.
	BodyPos finding.Position `json:"body_pos"`

	// bodyStart is the byte offset of the body's first byte in the file, and bodyIdx, when the
	// body is not a plain slice of the file there (a quoted literal with escapes, a body inside
	// dynamic SQL), the file offset of each of its bytes ([Function.BodyOffset]).
	bodyStart int
	bodyIdx   []int
}

// BodyOffset returns the byte offset in the file of byte i of Body (len(Body): just past it),
// so that a diagnostic about a body (a line and column inside it, from the server) lands where
// the user wrote it.
func (f *Function) BodyOffset(i int) int {
	if f.bodyIdx == nil {
		return f.bodyStart + i
	}
	return f.bodyIdx[max(0, min(i, len(f.bodyIdx)-1))]
}

// mapBody records where the body's bytes are in the file: bm maps a byte of the body to its file
// offset; linear says it is the body's first offset plus i (a dollar-quoted body of a top-level
// statement).
func (f *Function) mapBody(bm offsetMap, linear bool) {
	f.bodyStart = bm(0)
	if linear {
		return
	}
	f.bodyIdx = make([]int, len(f.Body)+1)
	for i := range f.bodyIdx {
		f.bodyIdx[i] = bm(i)
	}
}

func (*Function) family() string { return "functions" }

// Func returns the function a CREATE FUNCTION defines (or whose search_path ALTER FUNCTION
// sets), or nil.
func (o *Op) Func() *Function {
	f, _ := o.Family.(*Function)
	return f
}

func createFunction(a *analyzer, sc *scope, n *pg_query.Node, op *draft, sp span) func() {
	x := n.GetCreateFunctionStmt()
	kind := KindFunction
	op.Tag = "CREATE FUNCTION"
	if x.IsProcedure {
		kind, op.Tag = KindProcedure, "CREATE PROCEDURE"
	}
	op.Verb, op.OrReplace = VerbCreate, x.Replace
	obj := a.listObj(kind, strs(x.Funcname), op.Pos)
	obj.HasArgs, obj.Args = true, identityArgs(x.Parameters)
	op.Objects = []Object{obj}
	fn, asLoc := functionOptions(x)
	op.Family = fn
	op.functionSettings(x.Options)
	return func() {
		if fn.PinnedPath && len(fn.SearchPath) > 0 {
			a.path = fn.SearchPath
		}
		switch {
		case x.SqlBody != nil:
			a.atomicBody(sc, x.SqlBody, obj.Name, sp)
		case asLoc >= 0:
			a.functionBody(sc, fn, asLoc, obj.Name, sp)
		}
	}
}

// functionOptions reads a CREATE FUNCTION's result type and options, and returns where its AS
// clause is (-1 for none).
func functionOptions(x *pg_query.CreateFunctionStmt) (*Function, int) {
	fn := &Function{Language: "sql", Procedure: x.IsProcedure}
	if rt := x.ReturnType; rt != nil {
		if n := strs(rt.Names); len(n) > 0 && (n[len(n)-1] == "trigger" || n[len(n)-1] == "event_trigger") {
			fn.ReturnsTrigger = true
		}
	}
	asLoc := -1
	for _, o := range x.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "language":
			fn.Language = strings.ToLower(d.Arg.GetString_().GetSval())
		case "security":
			fn.SecurityDefiner = d.Arg.GetBoolean().GetBoolval()
		case "set":
			if vs := d.Arg.GetVariableSetStmt(); vs != nil && strings.EqualFold(vs.Name, "search_path") {
				fn.PinnedPath = vs.Kind == pg_query.VariableSetKind_VAR_SET_VALUE
				fn.SearchPath = searchPath(setValues(vs))
			}
		case "as":
			if items := d.Arg.GetList().GetItems(); len(items) > 0 {
				fn.Body = items[0].GetString_().GetSval()
			}
			asLoc = int(d.Location)
		}
	}
	return fn, asLoc
}

// atomicBody analyses the statements of a SQL-standard body (BEGIN ATOMIC ... END, RETURN ...),
// which the parser gives as nested lists.
func (a *analyzer) atomicBody(sc *scope, body *pg_query.Node, fn Name, sp span) {
	inner := &scope{src: sc.src, m: sc.m, ctx: InFunction, stmt: sc.stmt, fn: fn, depth: sc.depth + 1}
	var walk func(n *pg_query.Node)
	walk = func(n *pg_query.Node) {
		if l := n.GetList(); l != nil {
			for _, it := range l.Items {
				walk(it)
			}
			return
		}
		a.stmt(inner, n, sp.start, sp.end)
	}
	walk(body)
}

// functionBody analyses the AS string of a function (its clause at asLoc) in the function's
// language: PL/pgSQL and SQL are parsed, other languages are a problem lint reports.
func (a *analyzer) functionBody(sc *scope, fn *Function, asLoc int, name Name, sp span) {
	lit, bm := a.bodyLiteral(sc, asLoc, fn.Body)
	fn.BodyPos = a.f.Pos(bm(0))
	fn.mapBody(bm, lit.idx == nil && sc.ctx == TopLevel)
	switch fn.Language {
	case "plpgsql":
		a.plpgsql(sc, sc.src[sp.start:sp.end], lit.value, bm, InFunction, name)
	case "sql":
		if p := a.parseNested(sc, lit.value, bm, InFunction, name, true); p != nil {
			p.Msg = "in the body of function " + name.String() + ": " + p.Msg
			a.probs = append(a.probs, *p)
		}
	default:
		a.probs = append(a.probs, Problem{Pos: fn.BodyPos, Msg: "the body of function " + name.String() + " is in language " + fn.Language + ", which ledgercheck does not analyse"})
	}
}

func alterFunction(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetAlterFunctionStmt()
	kind := kindOf(x.Objtype)
	op.Verb, op.Tag = VerbAlter, "ALTER "+strings.ToUpper(string(kind))
	if x.Func != nil {
		op.Objects = []Object{a.withArgs(kind, x.Func, op.Pos)}
	}
	op.functionSettings(x.Actions)
	for _, act := range x.Actions {
		if d := act.GetDefElem(); d != nil && d.Defname == "set" {
			if vs := d.Arg.GetVariableSetStmt(); vs != nil && strings.EqualFold(vs.Name, "search_path") {
				op.Family = &Function{PinnedPath: vs.Kind == pg_query.VariableSetKind_VAR_SET_VALUE, SearchPath: setValues(vs)}
			}
		}
	}
	return nil
}
