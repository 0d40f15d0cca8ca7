package pgsql

//go:generate go run github.com/ledgercheck/ledgercheck/internal/cmd/genwalk -o walk_gen.go

import (
	"errors"
	"fmt"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"reflect"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"
)

// DefaultSearchPath is the search_path lint assumes until the file sets one: PostgreSQL's default
// ("$user", public) with "$user" dropped, since no such schema exists on Supabase.
var DefaultSearchPath = []string{"public"}

// maxDepth bounds the nesting of bodies inside bodies (a DO block that EXECUTEs a CREATE
// FUNCTION whose body ...).
const maxDepth = 8

// analyzer turns the parse trees of a file into [Op]s.
type analyzer struct {
	f     *File
	path  []string
	ops   []Op
	vecs  []VectorType
	probs []Problem
	col   collector
	draft draft
	// pending are the pg_cron job calls of the statement being analysed (jobs.go).
	pending []pendingJob
	uses    *[]Use // when not nil, each statement's uses are appended (ParseUses)
}

// scope is the text a statement was parsed from and how to map it back to the file.
type scope struct {
	src     string    // the text given to the parser
	m       offsetMap // byte offset in src → byte offset in the file
	ctx     Context
	stmt    int
	fn      Name
	depth   int
	collect bool // walk expressions for calls and vector types
}

func (a *analyzer) pos(sc *scope, local int) finding.Position { return a.f.Pos(sc.m(local)) }

// span is the text a statement was parsed from: src[start:end] of its scope.
type span struct{ start, end int }

// handler analyses one statement node of its family into op (the draft of the statement's Op)
// and returns the analysis of the statement's body, if it has one (a function's, a DO block's,
// CREATE SCHEMA's elements), which runs once the op is recorded.
type handler func(a *analyzer, sc *scope, n *pg_query.Node, op *draft, sp span) (body func())

// statements are a family's handlers, each for the parse-tree node type it analyses (a nil
// pointer of the oneof's wrapper type: (*pg_query.Node_CreateStmt)(nil)).
type statements []struct {
	node    any
	analyse handler
}

// handlers maps every statement node type to its family's handler. The families are the files
// stmt_*.go: a new statement kind is a handler there, a new family a file whose list joins the
// one below. (It is filled in init because the handlers reach stmt, which reads it.)
var handlers map[reflect.Type]handler

func init() {
	handlers = index(
		tableStatements,
		typeStatements,
		attachedStatements,
		policyStatements,
		schemaStatements,
		roleStatements,
		objectStatements,
		grantStatements,
		functionStatements,
		doStatements,
		sessionStatements,
		settingStatements,
		dataStatements,
		catalogStatements,
	)
}

// index builds the dispatch table, panicking on a node type two families claim.
func index(families ...statements) map[reflect.Type]handler {
	m := map[reflect.Type]handler{}
	for _, f := range families {
		for _, st := range f {
			t := reflect.TypeOf(st.node)
			if _, dup := m[t]; dup {
				panic("pgsql: two handlers for " + t.String())
			}
			m[t] = st.analyse
		}
	}
	return m
}

// stmt analyses one statement that spans src[start:end] of its scope: its family's handler
// fills the op, which is recorded before the statement's body (if any) is analysed.
func (a *analyzer) stmt(sc *scope, n *pg_query.Node, start, end int) {
	if n == nil {
		return
	}
	// The op is drafted in a.draft, which the statements of its body reuse once it is finished.
	op := &a.draft
	*op = draft{Op: Op{Stmt: sc.stmt, Start: sc.m(start), Verb: VerbOther}, Detail: Detail{Context: sc.ctx, SearchPath: a.path, Function: sc.fn}}
	op.Pos = a.f.Pos(op.Start)
	op.at = op.Pos
	var body func()
	if h := handlers[reflect.TypeOf(n.Node)]; h != nil {
		body = h(a, sc, n, op, span{start, end})
	} else {
		op.Tag = strings.ToUpper(strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", n.Node), "*pg_query.Node_"), "Stmt"))
	}
	if sc.collect {
		a.collect(sc, n, op)
	}
	if a.uses != nil {
		a.usesOf(sc, n, op)
	}
	a.ops = append(a.ops, op.finish())
	if len(a.pending) > 0 {
		a.jobs()
	}
	if body != nil && sc.depth < maxDepth {
		n := len(a.ops)
		saved := a.path
		body()
		a.path = saved
		sortOps(a.ops[n:])
	}
}

// rel converts a RangeVar to an object, resolving an unqualified name through the search_path.
func (a *analyzer) rel(sc *scope, kind ObjKind, rv *pg_query.RangeVar, at finding.Position) Object {
	if rv == nil {
		return Object{Kind: kind, Pos: at}
	}
	n, q := a.resolve(rv.Schemaname, rv.Relname)
	pos := at
	if rv.Location >= 0 {
		pos = a.pos(sc, int(rv.Location))
	}
	return Object{Kind: kind, Name: n, Qualified: q, Pos: pos}
}

func (a *analyzer) resolve(schema, name string) (Name, bool) {
	if schema != "" {
		return Name{schema, name}, true
	}
	first := "public"
	if len(a.path) > 0 {
		first = a.path[0]
	}
	return Name{first, name}, false
}

// listObj converts a dotted name ([catalog.][schema.]name) to an object.
func (a *analyzer) listObj(kind ObjKind, parts []string, at finding.Position) Object {
	if len(parts) == 0 {
		return Object{Kind: kind, Pos: at}
	}
	if !schemaScoped(kind) {
		return Object{Kind: kind, Name: Name{Name: parts[len(parts)-1]}, Qualified: true, Pos: at}
	}
	schema := ""
	if len(parts) >= 2 {
		schema = parts[len(parts)-2]
	}
	n, q := a.resolve(schema, parts[len(parts)-1])
	return Object{Kind: kind, Name: n, Qualified: q, Pos: at}
}

func schemaScoped(k ObjKind) bool {
	switch k {
	case KindSchema, KindExtension, KindLanguage, KindRole, "database", "event trigger", "publication", "subscription", "foreign data wrapper", "foreign server", "tablespace", "access method":
		return false
	}
	return true
}

// target converts the Relation-or-Object pair of several ALTER statements.
func (a *analyzer) target(sc *scope, kind ObjKind, rv *pg_query.RangeVar, obj *pg_query.Node, at finding.Position) Object {
	if rv != nil {
		return a.rel(sc, kind, rv, at)
	}
	return a.objOf(sc, kind, obj, at)
}

// objOf converts the object node of DROP, COMMENT, GRANT and ALTER statements.
func (a *analyzer) objOf(sc *scope, kind ObjKind, n *pg_query.Node, at finding.Position) Object {
	if n == nil {
		return Object{Kind: kind, Pos: at}
	}
	switch x := n.Node.(type) {
	case *pg_query.Node_List:
		if kind == KindCast && len(x.List.Items) == 2 { // DROP CAST, COMMENT ON CAST: (source AS target)
			return castObject(x.List.Items[0].GetTypeName(), x.List.Items[1].GetTypeName(), at)
		}
		parts := strs(x.List.Items)
		if kind.OnTable() && len(parts) >= 2 {
			tbl := a.listObj(KindTable, parts[:len(parts)-1], at)
			return Object{Kind: kind, Name: Name{Name: parts[len(parts)-1]}, Table: tbl.Name, Qualified: tbl.Qualified, Pos: at}
		}
		return a.listObj(kind, parts, at)
	case *pg_query.Node_String_:
		return a.listObj(kind, []string{x.String_.Sval}, at)
	case *pg_query.Node_ObjectWithArgs:
		return a.withArgs(kind, x.ObjectWithArgs, at)
	case *pg_query.Node_TypeName:
		pos := at
		if x.TypeName.Location >= 0 {
			pos = a.pos(sc, int(x.TypeName.Location))
		}
		return a.listObj(kind, strs(x.TypeName.Names), pos)
	case *pg_query.Node_RangeVar:
		return a.rel(sc, kind, x.RangeVar, at)
	}
	return Object{Kind: kind, Pos: at}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b []byte
	for i > 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

func strs(nodes []*pg_query.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

// objectKinds are the object types lint distinguishes; kindOf names the others.
var objectKinds = map[pg_query.ObjectType]ObjKind{
	pg_query.ObjectType_OBJECT_TABLE:           KindTable,
	pg_query.ObjectType_OBJECT_FOREIGN_TABLE:   KindTable,
	pg_query.ObjectType_OBJECT_VIEW:            KindView,
	pg_query.ObjectType_OBJECT_MATVIEW:         KindMatView,
	pg_query.ObjectType_OBJECT_INDEX:           KindIndex,
	pg_query.ObjectType_OBJECT_SEQUENCE:        KindSequence,
	pg_query.ObjectType_OBJECT_FUNCTION:        KindFunction,
	pg_query.ObjectType_OBJECT_ROUTINE:         KindFunction,
	pg_query.ObjectType_OBJECT_AGGREGATE:       KindFunction,
	pg_query.ObjectType_OBJECT_PROCEDURE:       KindProcedure,
	pg_query.ObjectType_OBJECT_SCHEMA:          KindSchema,
	pg_query.ObjectType_OBJECT_EXTENSION:       KindExtension,
	pg_query.ObjectType_OBJECT_POLICY:          KindPolicy,
	pg_query.ObjectType_OBJECT_TRIGGER:         KindTrigger,
	pg_query.ObjectType_OBJECT_RULE:            KindRule,
	pg_query.ObjectType_OBJECT_TYPE:            KindType,
	pg_query.ObjectType_OBJECT_DOMAIN:          KindType,
	pg_query.ObjectType_OBJECT_COLUMN:          KindColumn,
	pg_query.ObjectType_OBJECT_TABCONSTRAINT:   KindConstraint,
	pg_query.ObjectType_OBJECT_LANGUAGE:        KindLanguage,
	pg_query.ObjectType_OBJECT_ROLE:            KindRole,
	pg_query.ObjectType_OBJECT_STATISTIC_EXT:   KindStatistics,
	pg_query.ObjectType_OBJECT_TSCONFIGURATION: KindTSConfig,
	pg_query.ObjectType_OBJECT_TSDICTIONARY:    "text search dictionary",
}

// kindOf is the kind of an object type: one lint distinguishes, else PostgreSQL's name in
// lower case ("foreign data wrapper").
func kindOf(t pg_query.ObjectType) ObjKind {
	if k, ok := objectKinds[t]; ok {
		return k
	}
	return ObjKind(strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(t.String(), "OBJECT_")), "_", " "))
}

// collect walks a statement's tree for function calls and pgvector types.
func (a *analyzer) collect(sc *scope, n *pg_query.Node, op *draft) {
	c := &a.col
	c.a, c.sc, c.op = a, sc, op
	c.walkNode(n)
}

// collector is the state of [analyzer.collect]'s walk, kept in the analyzer so that walking a
// tree allocates nothing of its own. The walk itself is generated (walk_gen.go): a method per
// parse-tree message type from which a FuncCall or a TypeName can be reached, which calls
// funcCall and typeName.
type collector struct {
	a     *analyzer
	sc    *scope
	op    *draft
	visit func(any) // in tests, instead of the two methods below
}

func (c *collector) funcCall(x *pg_query.FuncCall) {
	if c.visit != nil {
		c.visit(x)
		return
	}
	a, sc, op := c.a, c.sc, c.op
	if call, ok := a.call(sc, x, op.Pos); ok {
		op.Calls = append(op.Calls, call)
		if call.Name.Name == "set_config" && (call.Name.Schema == "" || call.Name.Schema == "pg_catalog") {
			op.setConfig(x, call.Pos)
		}
		a.jobCall(sc, x, op)
	}
}

// call is the Call of x, at its position (else at): false when x names no function.
func (a *analyzer) call(sc *scope, x *pg_query.FuncCall, at finding.Position) (Call, bool) {
	names := strs(x.Funcname)
	if len(names) == 0 {
		return Call{}, false
	}
	call := Call{Name: Name{Name: names[len(names)-1]}, Pos: at, Args: len(x.Args), Literal: literalArg(x.Args)}
	if len(names) >= 2 {
		call.Name.Schema = names[len(names)-2]
	}
	if x.Location >= 0 {
		call.Pos = a.pos(sc, int(x.Location))
	}
	return call, true
}

// literalArg returns the string constant passed as the argument named url, else as the first
// argument (see [Call.Literal]).
func literalArg(args []*pg_query.Node) string {
	constant := func(n *pg_query.Node) string {
		if tc := n.GetTypeCast(); tc != nil {
			n = tc.Arg
		}
		if c := n.GetAConst(); c != nil && c.GetSval() != nil {
			return c.GetSval().Sval
		}
		return ""
	}
	for _, a := range args {
		if na := a.GetNamedArgExpr(); na != nil && strings.EqualFold(na.Name, "url") {
			return constant(na.Arg)
		}
	}
	if len(args) == 0 || args[0].GetNamedArgExpr() != nil {
		return ""
	}
	return constant(args[0])
}

func (c *collector) sqlValueFunction(x *pg_query.SQLValueFunction) {
	if c.visit != nil {
		c.visit(x)
		return
	}
	c.op.Values = append(c.op.Values, c.a.valueRead(c.sc, x, c.op.Pos))
}

// valueRead is the ValueRead of x, at its position (else at).
func (a *analyzer) valueRead(sc *scope, x *pg_query.SQLValueFunction, at finding.Position) ValueRead {
	v := ValueRead{Name: valueFunctions[x.Op], Pos: at}
	if x.Location >= 0 {
		v.Pos = a.pos(sc, int(x.Location))
	}
	return v
}

func (c *collector) typeName(x *pg_query.TypeName) {
	if c.visit != nil {
		c.visit(x)
		return
	}
	c.a.vectorType(c.sc, x, c.op)
}

var vectorTypes = map[string]bool{"vector": true, "halfvec": true, "sparsevec": true}

func (a *analyzer) vectorType(sc *scope, x *pg_query.TypeName, op *draft) {
	names := strs(x.Names)
	if len(names) == 0 || !vectorTypes[names[len(names)-1]] || len(x.Typmods) != 1 {
		return
	}
	c := x.Typmods[0].GetAConst()
	if c == nil || c.GetIval() == nil {
		return
	}
	pos := op.Pos
	if c.Location >= 0 {
		pos = a.pos(sc, int(c.Location))
	}
	a.vecs = append(a.vecs, VectorType{Type: names[len(names)-1], Dim: int(c.GetIval().Ival), Pos: pos})
}

// parseNested parses src (a body, a query inside a body, a dynamic SQL string) and analyses its
// statements in a new scope. It returns the parser's error, mapped to the file, if any.
func (a *analyzer) parseNested(parent *scope, src string, m offsetMap, ctx Context, fn Name, collect bool) *Problem {
	tree, err := parse(src, MaxNesting)
	if err != nil {
		p := &Problem{Pos: a.f.Pos(m(0)), Msg: err.Error(), Syntax: true}
		var ne *nestingError
		if errors.As(err, &ne) {
			return &Problem{Pos: a.f.Pos(m(ne.Offset)), Msg: ne.Error(), TooComplex: true}
		}
		var pe *parser.Error
		if errors.As(err, &pe) {
			p.Msg = nearOneLine(pe.Message)
			if pe.Cursorpos > 0 {
				p.Pos = a.f.Pos(m(finding.ByteOffset(src, pe.Cursorpos)))
			}
		}
		return p
	}
	sc := &scope{src: src, m: m, ctx: ctx, stmt: parent.stmt, fn: fn, depth: parent.depth + 1, collect: collect}
	for _, rs := range tree.GetStmts() {
		start := int(rs.GetStmtLocation())
		end := len(src)
		if n := int(rs.GetStmtLen()); n > 0 {
			end = start + n
		}
		start = skipSpaceAndComments(src, start)
		a.stmt(sc, rs.GetStmt(), start, end)
	}
	return nil
}

// sortOps orders ops[from:] by their position in the file, keeping the order of equal ones.
func sortOps(ops []Op) {
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Start < ops[j].Start })
}
