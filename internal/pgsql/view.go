package pgsql

import (
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// NormalizeView returns a view's definition (pg_get_viewdef) in a normal form that does not
// depend on the server version that printed it: parsed and printed back, with the column
// qualifiers of a query level that reads a single relation removed.
//
// PostgreSQL 16 stopped qualifying those columns: where 15 prints
//
//	SELECT t.owner_id FROM public.t WHERE (t.n > 0)
//
// 16 and later print SELECT owner_id FROM public.t WHERE (n > 0), for the same view. Only the
// view's top query level changed (15 kept two hidden range table entries, OLD and NEW, in every
// view's query, so its columns were always qualified; 16 dropped them). Sub-selects, CTE bodies
// and the arms of a UNION qualify their columns on every version, and they are left as they are.
// Removing a qualifier there changes nothing: a query level with one relation in its FROM clause
// resolves every column to it.
//
// A definition the parser does not take is an error; the caller then compares the text as it is.
// It never panics.
func NormalizeView(definition string) (norm string, err error) {
	defer func() {
		if r := recover(); r != nil {
			norm, err = "", fmt.Errorf("normalizer panic: %v", r)
		}
	}()
	tree, err := parse(definition, maxDeparseNesting)
	if err != nil {
		return "", fmt.Errorf("parsing the view definition: %w", err)
	}
	if len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return "", errors.New("the view definition is not one SELECT")
	}
	st := tree.Stmts[0]
	st.StmtLocation, st.StmtLen = 0, 0
	unqualifySingleRelation(st.Stmt.GetSelectStmt())
	out, err := pg_query.Deparse(tree)
	if err != nil {
		return "", fmt.Errorf("printing the view definition: %w", err)
	}
	return out, nil
}

// unqualifySingleRelation removes the qualifier from the columns of sel's own query level when
// its FROM clause is one relation that is not a join, and that qualifier names it.
func unqualifySingleRelation(sel *pg_query.SelectStmt) {
	if sel.Op != pg_query.SetOperation_SETOP_NONE || len(sel.FromClause) != 1 {
		return
	}
	name := refName(sel.FromClause[0])
	if name == "" {
		return
	}
	var walk func(m protoreflect.Message, top bool)
	walk = func(m protoreflect.Message, top bool) {
		switch x := m.Interface().(type) {
		case *pg_query.SelectStmt:
			if !top {
				return // another query level: its own names, qualified on every version
			}
		case *pg_query.ColumnRef:
			if len(x.Fields) == 2 && x.Fields[0].GetString_() != nil && x.Fields[0].GetString_().Sval == name && x.Fields[1].GetString_() != nil {
				x.Fields = x.Fields[1:]
			}
			return
		}
		eachChild(m, func(c protoreflect.Message) { walk(c, false) })
	}
	walk(sel.ProtoReflect(), true)
}

// refName is the name a FROM item is referred to by (its alias, else a table's name), or ""
// for a join or an item without one.
func refName(n *pg_query.Node) string {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		if rv.Alias != nil {
			return rv.Alias.Aliasname
		}
		return rv.Relname
	case n.GetRangeSubselect() != nil && n.GetRangeSubselect().Alias != nil:
		return n.GetRangeSubselect().Alias.Aliasname
	case n.GetRangeFunction() != nil && n.GetRangeFunction().Alias != nil:
		return n.GetRangeFunction().Alias.Aliasname
	case n.GetRangeTableFunc() != nil && n.GetRangeTableFunc().Alias != nil:
		return n.GetRangeTableFunc().Alias.Aliasname
	}
	return ""
}
