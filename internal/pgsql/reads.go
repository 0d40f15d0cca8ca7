package pgsql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Reads returns what a query (a probe's SELECT) reads: the functions it calls and the relations
// it names, each once, in the order they appear, schema-qualified only where the SQL qualifies
// them (names folded as PostgreSQL folds them). A CTE's name is not a relation. SQL that does not
// parse is an error.
func Reads(sql string) (funcs, rels []Name, err error) {
	defer func() {
		if r := recover(); r != nil {
			funcs, rels, err = nil, nil, fmt.Errorf("reading the query: parser panic: %v", r)
		}
	}()
	tree, err := parse(sql, MaxNesting)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the query: %w", err)
	}
	seen := map[string]bool{}
	ctes := map[string]bool{}
	add := func(list *[]Name, kind string, parts []string) {
		if len(parts) == 0 || len(parts) > 2 {
			return
		}
		n := Name{Name: parts[len(parts)-1]}
		if len(parts) == 2 {
			n.Schema = parts[0]
		}
		if k := kind + " " + n.String(); !seen[k] {
			seen[k] = true
			*list = append(*list, n)
		}
	}
	var walk func(m protoreflect.Message, visit func(any))
	walk = func(m protoreflect.Message, visit func(any)) {
		visit(m.Interface())
		eachChild(m, func(c protoreflect.Message) { walk(c, visit) })
	}
	visit := func(n any) {
		switch x := n.(type) {
		case *pg_query.RangeVar:
			if x.Schemaname != "" || !ctes[x.Relname] {
				add(&rels, "rel", nonEmpty(x.Schemaname, x.Relname))
			}
		case *pg_query.FuncCall:
			var parts []string
			for _, p := range x.Funcname {
				if s := p.GetString_(); s != nil {
					parts = append(parts, s.Sval)
				}
			}
			if len(parts) != 2 || parts[0] != "pg_catalog" {
				add(&funcs, "func", parts)
			}
		}
	}
	for _, st := range tree.Stmts { // the CTEs' names first: a FROM item may come before its WITH
		walk(st.Stmt.ProtoReflect(), func(n any) {
			if c, ok := n.(*pg_query.CommonTableExpr); ok {
				ctes[c.Ctename] = true
			}
		})
	}
	for _, st := range tree.Stmts {
		walk(st.Stmt.ProtoReflect(), visit)
	}
	return funcs, rels, nil
}

// nonEmpty returns the non-empty strings among ss.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// eachChild calls f with each message directly inside m, in the order the parse tree's fields are
// declared (protoreflect's Range has no defined order, and it differs between builds), and list
// elements in order: a walk that records what it meets then records it in the query's order.
func eachChild(m protoreflect.Message, f func(protoreflect.Message)) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() || !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		if fd.IsList() {
			for j := 0; j < v.List().Len(); j++ {
				f(v.List().Get(j).Message())
			}
			continue
		}
		f(v.Message())
	}
}
