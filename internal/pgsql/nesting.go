package pgsql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// MaxNesting is the deepest expression nesting ledgercheck parses, in operators: a chain of
// binary operators (1+1+...), nested function calls, parentheses, brackets or casts count one per
// level, a nested CASE two, a parenthesised sub-select three, a UNION, INTERSECT or EXCEPT half.
// Deeper statements are refused before pg_query sees them, with an error at the statement.
//
// pg_query_go hands every parse tree from C to Go as protobuf, and the nesting above is about
// half the depth of that protobuf (an operator is a Node and an A_Expr, a sub-select six
// messages). Measured with pg_query_go v5.1.0 on linux/amd64 with 8 MiB thread stacks (see the
// commit that added this limit):
//
//   - protobuf depth 10,000 is where Go's decoder gives up ("proto: exceeded maximum recursion
//     depth"): 4,997 terms of 1+1+..., 4,996 nested calls, casts or NOTs, 1,666 nested
//     sub-selects, 9,993 UNIONs;
//   - about 8,870 is where pg_query's deparser (the normalization of function bodies)
//     overflows the C stack and kills the process: 4,436 terms, 1,479 nested sub-selects,
//     8,868 UNIONs;
//   - about 47,600 is where the parser itself overflows the C stack while serializing the tree:
//     23,800 terms, 47,600 UNIONs (the segfault of issue 18, at 40,000 terms);
//   - PostgreSQL's own grammar stops earlier for some constructs, with "memory exhausted" (a
//     bison stack of 10,000): 9,994 nested parentheses, 2,000 nested CASEs, 3,330 nested
//     PL/pgSQL blocks or IFs; the server says the same, so that stays a parse-error.
//
// With 2 MiB thread stacks (glibc's default when the stack ulimit is unlimited) the parser
// crashes at about depth 12,000 (6,000 terms, 2,000 sub-selects) and the deparser at about 2,200
// (1,100 terms; 300 nested sub-selects pass, 400 crash).
//
// ledgercheck reads most trees from pg_query's JSON instead ([parseTree]), whose writer passes
// 24,000 terms and every nesting of sub-selects the grammar accepts (3,000) on 2 MiB stacks; the
// protobuf above is still what a tree the JSON decoder leaves to pg_query.Parse, and the
// deparser, go through.
//
// 2,000 is protobuf depth 4,000: a third of the depth that crashes the parser on 2 MiB stacks,
// less than half of what crashes the deparser on 8 MiB ones. The deparser, which only
// normalizes function bodies for parity, gets [maxDeparseNesting]. No migration written by a
// person comes near either; a thousand-row UNION ALL is 500.
const MaxNesting = 2000

// maxDeparseNesting bounds the bodies [NormalizeFunctionBody] deparses: protobuf depth 1,000,
// under half of what crashes the deparser on 2 MiB stacks. A deeper body is normalized by its
// tokens.
const maxDeparseNesting = 500

// Protobuf levels per construct, the unit of the estimate ([MaxNesting] is in half of them).
const (
	levelsOperator = 2 // a Node and its A_Expr, BoolExpr, TypeCast, NullTest, ...
	levelsGroup    = 2 // a parenthesis or bracket: a call, a row, an array, a grouping
	levelsSubquery = 6 // a parenthesised SELECT: Node, SubLink, Node, SelectStmt, ResTarget, Node
	levelsCase     = 4 // Node, CaseExpr, Node, CaseWhen
	levelsJoin     = 2 // Node, JoinExpr
	levelsSetOp    = 1 // SelectStmt.larg
)

// Word classes the estimate distinguishes.
const (
	wordNone     = iota
	wordSep      // starts a sibling: AND and OR (flattened by the parser), WHEN, THEN, ELSE
	wordOperator // an operator keyword: NOT, IS, LIKE, BETWEEN, COLLATE, AT, IN, ...
	wordSetOp    // UNION, INTERSECT, EXCEPT
	wordJoin     // JOIN
	wordCase     // CASE, closed by END
	wordEnd      // END
	wordQuery    // SELECT, WITH, VALUES, TABLE: after "(", a sub-select
)

var wordClasses = map[string]uint8{
	"and": wordSep, "or": wordSep, "when": wordSep, "then": wordSep, "else": wordSep,
	"not": wordOperator, "is": wordOperator, "isnull": wordOperator, "notnull": wordOperator,
	"like": wordOperator, "ilike": wordOperator, "similar": wordOperator, "between": wordOperator,
	"collate": wordOperator, "at": wordOperator, "in": wordOperator, "overlaps": wordOperator,
	"union": wordSetOp, "intersect": wordSetOp, "except": wordSetOp,
	"join":   wordJoin,
	"case":   wordCase,
	"end":    wordEnd,
	"select": wordQuery, "with": wordQuery, "values": wordQuery, "table": wordQuery,
}

// wordClass returns the class of the word w, case-insensitively, without allocating.
func wordClass(w string) uint8 {
	var buf [8]byte
	if len(w) < 2 || len(w) > len(buf) {
		return wordNone
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return wordClasses[string(buf[:len(w)])]
}

// frame is one open group of a statement: the statement itself, a parenthesis or bracket, or a
// CASE. Its depth is its own levels, plus its set operations and joins (which nest whatever
// separates them), plus its deepest item: the operators of a comma-separated item (or an
// AND/OR/WHEN/THEN/ELSE-separated one) and the deepest group inside it.
type frame struct {
	kind   byte // 's' statement, '(' parenthesis or bracket, 'c' CASE
	levels int
	set    int // set operations and joins
	ops    int // operators of the current item
	child  int // deepest group of the current item
	best   int // deepest item so far
}

func (f *frame) endItem() {
	f.best = max(f.best, f.ops+f.child)
	f.ops, f.child = 0, 0
}

func (f *frame) depth() int { return f.levels + f.set + max(f.best, f.ops+f.child) }

// nestingError is a statement nested deeper than Limit; Offset is where it starts in the text
// given to the parser.
type nestingError struct {
	Offset  int
	Nesting int
	Limit   int
}

func (e *nestingError) Error() string {
	return fmt.Sprintf("expression nesting of %d exceeds ledgercheck's limit of %d; split the expression or the statement", e.Nesting, e.Limit)
}

// checkNesting estimates, without recursion, how deep the parse tree of each statement of sql
// would be, and returns a *nestingError for the first one nested deeper than limit (in the unit
// of [MaxNesting]). The estimate errs on the deep side: it counts every operator of an item, as
// if they all nested.
//
// The estimate of a statement is at most its length in bytes (every token that adds levels adds
// at most two per byte, and the unit is two levels), so SQL no longer than limit is not scanned.
func checkNesting(sql string, limit int) error {
	if len(sql) <= limit {
		return nil
	}
	_, err := nesting(sql, limit, nil)
	return err
}

// nesting is [checkNesting] that also counts the statements of sql and, when comments is not
// nil, appends its comments to it.
func nesting(sql string, limit int, comments *[]comment) (stmts int, err error) {
	s := scanner{src: sql}
	e := &estimator{sql: sql, stack: make([]frame, 1, 16)}
	e.stack[0].kind = 's'
	stmtStart := -1
	for {
		t := s.next()
		if t.kind == tokComment {
			if comments != nil {
				*comments = append(*comments, comment{t.start, t.end})
			}
			continue
		}
		if t.kind == tokEOF || t.kind == tokPunct && sql[t.start] == ';' {
			if d := e.endStatement(); d > limit {
				return stmts, &nestingError{Offset: stmtStart, Nesting: d, Limit: limit}
			}
			if stmtStart >= 0 {
				stmts++
			}
			if t.kind == tokEOF {
				return stmts, nil
			}
			stmtStart = -1
			continue
		}
		if stmtStart < 0 {
			stmtStart = t.start
		}
		e.token(t)
	}
}

// estimator follows the groups of one statement at a time.
type estimator struct {
	sql   string
	stack []frame
	// afterOpen is set right after an opening parenthesis: a SELECT there is a sub-select.
	afterOpen bool
}

// closeTop closes the innermost group into its parent.
func (e *estimator) closeTop() {
	f := e.stack[len(e.stack)-1]
	e.stack = e.stack[:len(e.stack)-1]
	top := &e.stack[len(e.stack)-1]
	top.child = max(top.child, f.depth())
}

// endStatement closes every group and returns the statement's nesting, in MaxNesting's unit.
func (e *estimator) endStatement() int {
	for len(e.stack) > 1 {
		e.closeTop()
	}
	d := (e.stack[0].depth() + 1) / 2
	e.stack[0], e.afterOpen = frame{kind: 's'}, false
	return d
}

// token follows one token of the statement.
func (e *estimator) token(t token) {
	opened := e.afterOpen
	e.afterOpen = false
	switch t.kind {
	case tokOp:
		e.stack[len(e.stack)-1].ops += levelsOperator
	case tokPunct:
		e.punct(e.sql[t.start])
	case tokWord:
		e.word(e.sql[t.start:t.end], opened)
	}
}

// punct opens and closes brackets, and ends items at commas.
func (e *estimator) punct(c byte) {
	switch c {
	case '(', '[':
		e.stack = append(e.stack, frame{kind: '(', levels: levelsGroup})
		e.afterOpen = true
	case ')', ']':
		for len(e.stack) > 1 && e.stack[len(e.stack)-1].kind != '(' {
			e.closeTop()
		}
		if len(e.stack) > 1 {
			e.closeTop()
		}
	case ',':
		e.stack[len(e.stack)-1].endItem()
	}
}

// word counts the keywords that nest: operators, set operations, joins, CASE ... END and
// sub-selects (a query keyword right after an opening parenthesis).
func (e *estimator) word(w string, opened bool) {
	top := &e.stack[len(e.stack)-1]
	switch wordClass(w) {
	case wordSep:
		top.endItem()
	case wordOperator:
		top.ops += levelsOperator
	case wordSetOp:
		top.set += levelsSetOp
	case wordJoin:
		top.set += levelsJoin
	case wordCase:
		e.stack = append(e.stack, frame{kind: 'c', levels: levelsCase})
	case wordEnd:
		if top.kind == 'c' {
			e.closeTop()
		}
	case wordQuery:
		if opened {
			top.levels = levelsSubquery
		}
	}
}

// parse is pg_query.Parse (through [parseTree]) behind [checkNesting] at limit: every parse of
// SQL whose nesting is not known goes through it.
func parse(sql string, limit int) (*pg_query.ParseResult, error) {
	if err := checkNesting(sql, limit); err != nil {
		return nil, err
	}
	return parseTree(sql)
}
