package pgsql

import (
	"regexp"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The DO family: DO blocks, whose PL/pgSQL is analysed as statements of their own, and the
// EXECUTE statements of PL/pgSQL ([Dynamic]), which the body walker records (body.go).
var doStatements = statements{
	{(*pg_query.Node_DoStmt)(nil), doBlock},
}

// Dynamic describes a PL/pgSQL EXECUTE (or FOR ... EXECUTE, RETURN QUERY EXECUTE, OPEN ...
// FOR EXECUTE).
type Dynamic struct {
	// Literal reports whether its SQL was a string literal (or a concatenation of literals),
	// whose statements then appear as Ops of their own.
	Literal bool   `json:"literal"`
	SQL     string `json:"sql,omitempty"`
	// Creates are the objects a format() template creates under names that do not depend on
	// its arguments (EXECUTE format('CREATE TABLE IF NOT EXISTS public.t (v vector(%s))', n)):
	// the file's own, though the statements themselves stay opaque. Their position is the
	// EXECUTE's.
	Creates []Object `json:"creates,omitempty"`
}

// fmtArg stands for every argument of a format() template, so that the template parses.
const fmtArg = "ledgercheck_format_argument"

// formatSpecRE matches a format() specifier: %[position$][-][width]type.
var formatSpecRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`%(?:\d+\$)?-?(?:\d+|\*(?:\d+\$)?)?([sIL%])`) })

// formatTemplate returns the SQL of format('template', ...) with every specifier replaced by a
// placeholder of its kind (an identifier, a literal), or false when q is not such a call.
func formatTemplate(q string) (string, bool) {
	tree, err := parse("SELECT "+q, MaxNesting)
	if err != nil || len(tree.GetStmts()) != 1 {
		return "", false
	}
	sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || sel.FromClause != nil {
		return "", false
	}
	fc := sel.TargetList[0].GetResTarget().GetVal().GetFuncCall()
	names := strs(fc.GetFuncname())
	if fc == nil || len(names) == 0 || names[len(names)-1] != "format" || len(fc.Args) == 0 {
		return "", false
	}
	arg := fc.Args[0]
	if tc := arg.GetTypeCast(); tc != nil {
		arg = tc.Arg
	}
	c := arg.GetAConst()
	if c == nil || c.GetSval() == nil {
		return "", false
	}
	return formatSpecRE().ReplaceAllStringFunc(c.GetSval().Sval, func(spec string) string {
		switch spec[len(spec)-1] {
		case '%':
			return "%"
		case 'L':
			return "'" + fmtArg + "'"
		}
		return fmtArg
	}), true
}

// templateCreates returns the objects the format() template q creates under names of its own
// ([Dynamic.Creates]), at the file offset at (the EXECUTE). The template is analysed apart: its
// statements are not ops of the file.
func (a *analyzer) templateCreates(sc *scope, q string, at int) []Object {
	tmpl, ok := formatTemplate(q)
	if !ok {
		return nil
	}
	sub := &analyzer{f: a.f, path: a.path}
	sub.parseNested(sc, tmpl, func(int) int { return at }, InExecute, Name{}, false)
	var out []Object
	keep := func(o Object) {
		if !strings.Contains(o.Name.Name+o.Name.Schema+o.Table.Name+o.Table.Schema, fmtArg) {
			o.Pos = a.f.Pos(at)
			out = append(out, o)
		}
	}
	for _, op := range sub.ops {
		if op.Verb == VerbCreate && len(op.Objects) > 0 && op.Context == InExecute {
			keep(op.Objects[0])
			for _, o := range op.Implicit {
				keep(o)
			}
		}
	}
	return out
}

func (*Dynamic) family() string { return "do" }

// Dynamic returns the detail of a PL/pgSQL EXECUTE, or nil.
func (o *Op) Dynamic() *Dynamic {
	d, _ := o.Family.(*Dynamic)
	return d
}

// DoBlock is the detail of a DO block.
type DoBlock struct {
	// DropsOverloads are the functions whose every overload the block drops: a loop over
	// pg_proc filtered by proname (and the schema) alone that EXECUTEs DROP FUNCTION of each
	// row's regprocedure, which makes a later plain CREATE FUNCTION of that name rerun-safe.
	DropsOverloads []Name `json:"drops_overloads,omitempty"`
}

func (*DoBlock) family() string { return "do" }

// Do returns the detail of a DO block, or nil.
func (o *Op) Do() *DoBlock {
	d, _ := o.Family.(*DoBlock)
	return d
}

func doBlock(a *analyzer, sc *scope, n *pg_query.Node, op *draft, sp span) func() {
	x := n.GetDoStmt()
	start, end := sp.start, sp.end
	op.Verb, op.Tag = VerbDo, "DO"
	blk := &DoBlock{}
	op.Family = blk
	lang, body, loc := "plpgsql", "", -1
	for _, arg := range x.Args {
		d := arg.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "as":
			body, loc = d.Arg.GetString_().GetSval(), int(d.Location)
		case "language":
			lang = strings.ToLower(d.Arg.GetString_().GetSval())
		}
	}
	return func() {
		if loc < 0 {
			return
		}
		lit, bm := a.bodyLiteral(sc, loc, body)
		if lang != "plpgsql" {
			a.probs = append(a.probs, Problem{Pos: a.f.Pos(bm(0)), Msg: "a DO block in language " + lang + " is not analysed"})
			return
		}
		fns := a.plpgsql(sc, sc.src[start:end], lit.value, bm, InDo, Name{})
		blk.DropsOverloads = dropsOverloads(fns, a.path)
	}
}

// dropFunctionRE is the SQL of an EXECUTE that drops the function its loop variable names:
// format('DROP FUNCTION [IF EXISTS] %s [CASCADE]', v) or 'DROP FUNCTION ' || v.
var dropFunctionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)^\s*(?:format\(\s*'\s*drop\s+(?:function|routine)\s+(?:if\s+exists\s+)?%s(?:\s+cascade)?\s*;?\s*'\s*,\s*[a-z_][a-z0-9_.]*\s*\)|'\s*drop\s+(?:function|routine)\s+(?:if\s+exists\s+)?'\s*\|\|\s*[a-z_][a-z0-9_.]*(?:::text)?)\s*$`)
})

// dropsOverloads finds, in the PL/pgSQL parse tree of a DO block, the loops that drop every
// overload of a function name ([DoBlock.DropsOverloads]); path resolves a loop without a schema
// filter.
func dropsOverloads(fns []map[string]any, path []string) []Name {
	var out []Name
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			if fors, ok := x["PLpgSQL_stmt_fors"].(map[string]any); ok {
				if n, ok := overloadLoop(fors, path); ok {
					out = append(out, n)
				}
			}
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, f := range fns {
		walk(f)
	}
	return out
}

// overloadLoop reports whether a FOR ... IN query LOOP drops every overload of one name.
func overloadLoop(fors map[string]any, path []string) (Name, bool) {
	q, _ := exprQuery(fors["query"])
	name, ok := procLoopName(q, path)
	if !ok {
		return Name{}, false
	}
	body, _ := fors["body"].([]any)
	for _, st := range body {
		m, _ := st.(map[string]any)
		if dx, ok := m["PLpgSQL_stmt_dynexecute"].(map[string]any); ok {
			if sql, _ := exprQuery(dx["query"]); dropFunctionRE().MatchString(sql) {
				return name, true
			}
		}
	}
	return Name{}, false
}

func exprQuery(v any) (string, bool) {
	e, _ := v.(map[string]any)
	pe, _ := e["PLpgSQL_expr"].(map[string]any)
	q, ok := pe["query"].(string)
	return q, ok
}

// procLoopName reads a query over pg_proc (joined with pg_namespace or not) whose WHERE is a
// conjunction of proname = 'name' and schema conditions (nspname = 's', pronamespace =
// 's'::regnamespace) only, and returns the function name it selects every overload of.
func procLoopName(q string, path []string) (Name, bool) {
	tree, err := parse(q, MaxNesting)
	if err != nil || len(tree.GetStmts()) != 1 {
		return Name{}, false
	}
	sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	if sel == nil || len(sel.FromClause) != 1 || sel.WhereClause == nil {
		return Name{}, false
	}
	var n Name
	for _, c := range conjuncts(sel.WhereClause) {
		col, val, ok := columnEquals(c)
		if !ok {
			return Name{}, false
		}
		switch col {
		case "proname":
			n.Name = val
		case "nspname", "pronamespace":
			n.Schema = val
		default:
			return Name{}, false
		}
	}
	if n.Name == "" {
		return Name{}, false
	}
	if n.Schema == "" {
		n.Schema = "public"
		if len(path) > 0 {
			n.Schema = path[0]
		}
	}
	return n, true
}

func conjuncts(n *pg_query.Node) []*pg_query.Node {
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg_query.BoolExprType_AND_EXPR {
		var out []*pg_query.Node
		for _, a := range b.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []*pg_query.Node{n}
}

// columnEquals reads "[alias.]column = 'literal'[::type]".
func columnEquals(n *pg_query.Node) (string, string, bool) {
	e := n.GetAExpr()
	if e == nil || e.Kind != pg_query.A_Expr_Kind_AEXPR_OP {
		return "", "", false
	}
	if ops := strs(e.Name); len(ops) != 1 || ops[0] != "=" {
		return "", "", false
	}
	cr := e.Lexpr.GetColumnRef()
	if cr == nil {
		return "", "", false
	}
	fields := strs(cr.Fields)
	r := e.Rexpr
	if tc := r.GetTypeCast(); tc != nil {
		r = tc.Arg
	}
	c := r.GetAConst()
	if len(fields) == 0 || c == nil || c.GetSval() == nil {
		return "", "", false
	}
	return fields[len(fields)-1], c.GetSval().Sval, true
}
