package pgsql

import (
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"
)

// bodyLiteral finds the string literal holding a body whose AS clause (or the literal itself)
// starts at loc in sc.src, and returns it with a map from body offsets to file offsets.
func (a *analyzer) bodyLiteral(sc *scope, loc int, value string) (*literal, offsetMap) {
	src := sc.src
	off := loc
	if off+2 <= len(src) && strings.EqualFold(src[off:off+2], "as") && (off+2 == len(src) || !isIdentByte(src[off+2])) {
		off += 2
	}
	off = skipSpaceAndComments(src, off)
	lit, ok := readLiteral(src, off)
	if !ok || lit.value != value {
		if i := strings.Index(src[loc:], value); value != "" && i >= 0 {
			lit = &literal{value: value, base: loc + i, end: loc + i + len(value)}
		} else {
			lit = &literal{value: value, idx: []int{}, end: loc}
		}
	}
	return lit, func(i int) int { return sc.m(lit.pos(i)) }
}

var (
	nearLineRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`near line (\d+)`) })
	nearTokenRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`at or near "(.+)"$`) })
)

// plpgsql compiles a function or DO statement with PL/pgSQL and analyses the SQL inside it.
// body is the AS string, bm maps its offsets to the file.
// It returns the parse tree (nil when the body does not compile).
func (a *analyzer) plpgsql(sc *scope, stmtText, body string, bm offsetMap, ctx Context, fn Name) []map[string]any {
	tree, err := plpgsqlTree(stmtText)
	var te *treeError
	if errors.As(err, &te) {
		a.probs = append(a.probs, Problem{Pos: a.f.Pos(bm(0)), Msg: te.Error()})
		return nil
	}
	if err != nil {
		p := Problem{Pos: a.f.Pos(bm(0)), Msg: err.Error()}
		var ne *nestingError
		var pe *parser.Error
		switch {
		case errors.As(err, &ne):
			p.TooComplex = true
		case errors.As(err, &pe):
			p.Msg = nearOneLine(pe.Message)
			p.Syntax = strings.Contains(pe.Message, "syntax error")
			if m := nearLineRE().FindStringSubmatch(pe.Context); m != nil {
				line, _ := strconv.Atoi(m[1])
				bl := newLines(body)
				at := firstNonSpace(body, bl.start(line))
				// "near line N" is where the statement began; the token the message names is
				// more precise.
				if t := nearTokenRE().FindStringSubmatch(pe.Message); t != nil {
					if i := bl.locate(t[1], line); i >= 0 {
						at = i
					}
				}
				p.Pos = a.f.Pos(bm(at))
			}
		}
		p.Msg = plWhere(ctx, fn) + ": " + p.Msg
		a.probs = append(a.probs, p)
		return nil
	}
	fns, ok := plFunctions(tree)
	if !ok {
		a.probs = append(a.probs, Problem{Pos: a.f.Pos(bm(0)), Msg: "unexpected PL/pgSQL parse tree: not a list of functions"})
		return nil
	}
	w := &plWalker{a: a, sc: sc, body: body, lines: newLines(body), bm: bm, ctx: ctx, fn: fn}
	for _, f := range fns {
		w.walk(f["PLpgSQL_function"], 1)
	}
	return fns
}

// plFunctions is pg_query's PL/pgSQL tree, a list of functions, as json.Unmarshal into a
// []map[string]any gives it; false when it is not a list of objects (and nulls).
func plFunctions(v any) ([]map[string]any, bool) {
	list, isList := v.([]any)
	if !isList {
		return nil, false
	}
	fns := make([]map[string]any, len(list))
	for i, e := range list {
		if e == nil {
			continue
		}
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		fns[i] = m
	}
	return fns, true
}

// plWhere names a PL/pgSQL body for messages: "in the PL/pgSQL body of function f" or "in the
// PL/pgSQL DO block".
func plWhere(ctx Context, fn Name) string {
	if ctx == InFunction {
		return "in the PL/pgSQL body of function " + fn.String()
	}
	return "in the PL/pgSQL DO block"
}

// plWalker walks the JSON parse tree of one PL/pgSQL function or DO block.
type plWalker struct {
	a     *analyzer
	sc    *scope
	body  string
	lines *lines
	bm    offsetMap
	ctx   Context
	fn    Name
	keys  []string
}

func (w *plWalker) walk(v any, line int) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			w.walk(e, line)
		}
	case map[string]any:
		if l, ok := x["lineno"].(float64); ok && l > 0 {
			line = int(l)
		}
		// The keys in order, in w.keys above those of the maps being walked.
		base := len(w.keys)
		for k := range x {
			w.keys = append(w.keys, k)
		}
		keys := w.keys[base:]
		sort.Strings(keys)
		for _, k := range keys {
			if !w.node(k, x[k], line) {
				w.walk(x[k], line)
			}
		}
		clear(w.keys[base:])
		w.keys = w.keys[:base]
	}
}

// node analyses the PL/pgSQL node of kind k that the walk meets: an expression (parsed as SQL,
// and not walked further: it reports true), a dynamic EXECUTE, a variable declaration.
func (w *plWalker) node(k string, val any, line int) (done bool) {
	m, ok := val.(map[string]any)
	if !ok {
		return false
	}
	switch k {
	case "PLpgSQL_expr":
		q, _ := m["query"].(string)
		mode, _ := m["parseMode"].(float64)
		w.expr(q, int(mode), line)
		return true
	case "PLpgSQL_stmt_dynexecute", "PLpgSQL_stmt_dynfors":
		w.dynamic(m, "query", line)
	case "PLpgSQL_stmt_return_query", "PLpgSQL_stmt_open":
		if m["dynquery"] != nil {
			w.dynamic(m, "dynquery", line)
		}
	case "PLpgSQL_var":
		w.variable(m, line)
	}
	return false
}

// expr re-parses the SQL of one PLpgSQL_expr. mode is PostgreSQL's RawParseMode: 0 a whole
// statement, 2 an expression, 3-5 an assignment.
func (w *plWalker) expr(q string, mode, line int) {
	off := w.lines.locate(q, line)
	text, delta := q, 0 // byte i of text sits at body offset off+i-delta
	switch mode {
	case 0:
		if off < 0 && strings.HasPrefix(q, "SELECT ") { // PERFORM x is compiled as SELECT x
			if o := w.lines.locate(q[7:], line); o >= 0 {
				off, delta = o, 7
			}
		}
	case 2:
		text, delta = "SELECT "+q, 7
	case 3, 4, 5:
		i, n := strings.Index(q, ":="), 2
		if i < 0 {
			i, n = strings.Index(q, "="), 1
		}
		if i < 0 {
			return
		}
		text, delta = "SELECT "+q[i+n:], 7-(i+n)
	default:
		return
	}
	m := w.exprMap(off, delta, line)
	// The PL/pgSQL compiler has already checked the syntax of every expression; a failure here
	// comes from splitting an assignment and is not the file's fault, unless the expression is
	// too deep to parse.
	if p := w.a.parseNested(w.sc, text, m, w.ctx, w.fn, true); p != nil && p.TooComplex {
		p.Msg = plWhere(w.ctx, w.fn) + ": " + p.Msg
		w.a.probs = append(w.a.probs, *p)
	}
}

func (w *plWalker) exprMap(off, delta, line int) offsetMap {
	if off < 0 {
		ls := firstNonSpace(w.body, w.lines.start(line))
		return func(int) int { return w.bm(ls) }
	}
	return func(i int) int {
		j := off + i - delta
		if j < off {
			j = off
		}
		return w.bm(j)
	}
}

// dynamic records a dynamic EXECUTE; when its SQL is a string literal (or a concatenation of
// literals) that SQL is parsed and analysed too.
func (w *plWalker) dynamic(s map[string]any, key string, line int) {
	if l, ok := s["lineno"].(float64); ok && l > 0 {
		line = int(l)
	}
	q := ""
	if e, ok := s[key].(map[string]any); ok {
		if pe, ok := e["PLpgSQL_expr"].(map[string]any); ok {
			q, _ = pe["query"].(string)
		}
	}
	ls := w.lines.start(line)
	at := firstNonSpace(w.body, ls)
	if i := indexFold(w.body[ls:], "execute"); i >= 0 {
		at = ls + i
	}
	a := w.a
	op := draft{Op: Op{Stmt: w.sc.stmt, Verb: VerbExecute, Tag: "EXECUTE", Start: w.bm(at)},
		Detail: Detail{Context: w.ctx, SearchPath: a.path, Function: w.fn}}
	dyn := &Dynamic{SQL: q}
	op.Family = dyn
	op.Pos = a.f.Pos(op.Start)
	op.at = op.Pos
	off := w.lines.locate(q, line)
	value, idx, ok := literalSQL(q)
	if !ok {
		dyn.Creates = a.templateCreates(w.sc, q, op.Start)
		a.ops = append(a.ops, op.finish())
		return
	}
	dyn.Literal, dyn.SQL = true, value
	a.ops = append(a.ops, op.finish())
	exprM := w.exprMap(off, 7, line)
	m := func(i int) int {
		switch {
		case len(idx) == 0:
			return exprM(0)
		case i < 0:
			i = 0
		case i >= len(idx):
			i = len(idx) - 1
		}
		return exprM(idx[i])
	}
	if p := a.parseNested(w.sc, value, m, InExecute, w.fn, true); p != nil {
		p.Syntax = false
		if p.TooComplex {
			p.Msg = "in the SQL string passed to EXECUTE: " + p.Msg
		} else {
			p.Msg = "the SQL string passed to EXECUTE does not parse: " + p.Msg
		}
		a.probs = append(a.probs, *p)
	}
}

// literalSQL returns the value of an EXECUTE argument made only of string literals, with the
// offset of each value byte in "SELECT "+q.
func literalSQL(q string) (string, []int, bool) {
	text := "SELECT " + q
	tree, err := parse(text, MaxNesting)
	if err != nil || len(tree.GetStmts()) != 1 {
		return "", nil, false
	}
	sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || sel.FromClause != nil {
		return "", nil, false
	}
	return concatLiteral(text, sel.TargetList[0].GetResTarget().GetVal())
}

func concatLiteral(text string, n *pg_query.Node) (string, []int, bool) {
	if n == nil {
		return "", nil, false
	}
	if c := n.GetAConst(); c != nil && c.GetSval() != nil {
		lit, ok := readLiteral(text, int(c.Location))
		if !ok || lit.value != c.GetSval().Sval {
			return "", nil, false
		}
		return lit.value, lit.offsets(), true
	}
	if tc := n.GetTypeCast(); tc != nil {
		return concatLiteral(text, tc.Arg)
	}
	if e := n.GetAExpr(); e != nil && e.Kind == pg_query.A_Expr_Kind_AEXPR_OP {
		if names := strs(e.Name); len(names) == 1 && names[0] == "||" {
			l, li, ok := concatLiteral(text, e.Lexpr)
			if !ok {
				return "", nil, false
			}
			r, ri, ok := concatLiteral(text, e.Rexpr)
			if !ok {
				return "", nil, false
			}
			return l + r, append(append([]int{}, li...), ri...), true
		}
	}
	return "", nil, false
}

var vectorVarRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(?:[a-z_]+\.)?(vector|halfvec|sparsevec)\s*\(\s*(\d+)\s*\)`)
})

// variable records a pgvector type with a dimension in a PL/pgSQL declaration.
func (w *plWalker) variable(v map[string]any, line int) {
	if l, ok := v["lineno"].(float64); ok && l > 0 {
		line = int(l)
	}
	dt, _ := v["datatype"].(map[string]any)
	t, _ := dt["PLpgSQL_type"].(map[string]any)
	name, _ := t["typname"].(string)
	m := vectorVarRE().FindStringSubmatch(name)
	if m == nil {
		return
	}
	dim, err := strconv.Atoi(m[2])
	if err != nil {
		return
	}
	ls := w.lines.start(line)
	le := strings.IndexByte(w.body[ls:], '\n')
	if le < 0 {
		le = len(w.body) - ls
	}
	lineText := w.body[ls : ls+le]
	at := firstNonSpace(w.body, ls)
	if loc := regexp.MustCompile(`(?i)\b` + m[1] + `\s*\(\s*(` + m[2] + `)`).FindStringSubmatchIndex(lineText); loc != nil {
		at = ls + loc[2]
	}
	w.a.vecs = append(w.a.vecs, VectorType{Type: strings.ToLower(m[1]), Dim: dim, Pos: w.a.f.Pos(w.bm(at))})
}

// lines indexes the lines of a body, so that finding the line of each of its statements is not
// a walk from the start of the body (quadratic in a body of 100,000 lines).
type lines struct {
	s      string
	starts []int
}

func newLines(s string) *lines {
	l := &lines{s: s, starts: make([]int, 1, strings.Count(s, "\n")+1)}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

// start returns the offset of the 1-based line (len(s) past the last line).
func (l *lines) start(line int) int {
	switch {
	case line <= 1:
		return 0
	case line > len(l.starts):
		return len(l.s)
	}
	return l.starts[line-1]
}

// locate finds q at or after the start of the 1-based line, else anywhere; -1 if absent.
func (l *lines) locate(q string, line int) int {
	if q == "" {
		return -1
	}
	ls := l.start(line)
	if i := strings.Index(l.s[ls:], q); i >= 0 {
		return ls + i
	}
	return strings.Index(l.s, q)
}

func firstNonSpace(s string, off int) int {
	for off < len(s) && (s[off] == ' ' || s[off] == '\t' || s[off] == '\r' || s[off] == '\n') {
		off++
	}
	return off
}

// indexFold returns the index of the first case-insensitive occurrence of the lower-case word
// in s on its first line, or -1.
func indexFold(s, word string) int {
	if nl := strings.IndexByte(s, '\n'); nl >= 0 {
		s = s[:nl]
	}
	return strings.Index(asciiLower(s), word)
}

// asciiLower lowers ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
