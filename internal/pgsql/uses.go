package pgsql

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Use is a reference a statement makes to a database object by name: a relation it reads or
// writes, a column of one, a function it calls, a type it names. Statements in function bodies
// (PL/pgSQL and SQL) and DO blocks make uses too. What a file's uses name that another file
// creates is what the file needs of it (internal/repository's needs).
type Use struct {
	// Kind is KindTable for any relation (table, view, materialized view, sequence),
	// KindColumn, KindFunction (a call, or a trigger's function), KindType or KindOpClass (an
	// index's operator class).
	Kind ObjKind
	// Name is the object's name as the SQL writes it, folded: Schema is "" when unqualified (it
	// is then found through SearchPath). A column's Name is the column alone.
	Name Name
	// Table is a column's relation when the statement says which: the column is qualified by
	// the relation or its alias, the statement reads one relation only, or it is a column of
	// an INSERT, UPDATE or CREATE INDEX. Tables, when Table is not known, are the relations the
	// statement reads, any of which may hold it (none: a PL/pgSQL record such as NEW, whose
	// relation the function does not say).
	Table  Name
	Tables []Name
	// Args is the number of a function call's arguments.
	Args int
	// SearchPath is the search_path the statement's unqualified names are resolved through.
	SearchPath []string
	// Context is where the statement runs (top level, a function body, ...), and Pos where the
	// name is written.
	Context Context
	Pos     finding.Position
}

// KindOpClass is an operator class an index names (gin_trgm_ops): a use, created by the
// extension that provides it.
const KindOpClass ObjKind = "operator class"

// ParseUses is [Parse], and the uses of every statement of the file (function bodies, DO
// blocks and literal EXECUTE strings included), in file order. It reads every parse tree once
// more than Parse does; lint does not need it.
func ParseUses(name string, src []byte) (*File, []Use, error) {
	var uses []Use
	f, err := parseFile(name, src, &uses)
	return f, uses, err
}

// usesOf appends to a.uses the uses of the statement n, analysed in scope sc as op.
func (a *analyzer) usesOf(sc *scope, n *pg_query.Node, op *draft) {
	c := useCollector{a: a, sc: sc, op: op, aliases: map[string]Name{}, ctes: map[string]bool{}}
	// The relations and their aliases first: a column may be qualified by an alias whose FROM
	// item comes after it (SELECT t.a FROM thoughts t).
	walkMessages(n.ProtoReflect(), c.relation)
	walkMessages(n.ProtoReflect(), c.reference)
}

// useCollector gathers the uses of one statement.
type useCollector struct {
	a       *analyzer
	sc      *scope
	op      *draft
	rels    []Name          // the relations the statement names, each once
	aliases map[string]Name // an alias or a relation's own name -> the relation
	ctes    map[string]bool
}

// add records a use of the statement, at loc in its scope (the statement's position when the
// parser records none).
func (c *useCollector) add(u Use, loc int32) {
	u.SearchPath, u.Context, u.Pos = c.op.SearchPath, c.op.Context, c.op.Pos
	if loc >= 0 {
		u.Pos = c.a.pos(c.sc, int(loc))
	}
	*c.a.uses = append(*c.a.uses, u)
}

// relation records a relation the statement names, with its alias, and the CTEs it defines.
func (c *useCollector) relation(m protoreflect.Message) {
	switch x := m.Interface().(type) {
	case *pg_query.CommonTableExpr:
		c.ctes[x.Ctename] = true
	case *pg_query.RangeVar:
		if x.Relname == "" || x.Schemaname == "" && c.ctes[x.Relname] {
			return
		}
		n := Name{Schema: x.Schemaname, Name: x.Relname}
		if _, seen := c.aliases[x.Relname]; !seen || x.Schemaname != "" {
			c.aliases[x.Relname] = n
		}
		if x.Alias != nil && x.Alias.Aliasname != "" {
			c.aliases[x.Alias.Aliasname] = n
		}
		for _, r := range c.rels {
			if r == n {
				return
			}
		}
		c.rels = append(c.rels, n)
		c.add(Use{Kind: KindTable, Name: n}, x.Location)
	}
}

// reference records the columns, function calls and types the statement names.
func (c *useCollector) reference(m protoreflect.Message) {
	switch x := m.Interface().(type) {
	case *pg_query.ColumnRef:
		c.column(strs(x.Fields), x.Location)
	case *pg_query.FuncCall:
		if parts := strs(x.Funcname); len(parts) > 0 && !(len(parts) == 2 && parts[0] == "pg_catalog") {
			c.add(Use{Kind: KindFunction, Name: dotted(parts), Args: len(x.Args)}, x.Location)
		}
	case *pg_query.TypeName:
		if parts := strs(x.Names); len(parts) > 0 && !(len(parts) == 2 && parts[0] == "pg_catalog") {
			c.add(Use{Kind: KindType, Name: dotted(parts)}, x.Location)
		}
	case *pg_query.InsertStmt:
		for _, t := range x.Cols {
			if rt := t.GetResTarget(); rt != nil && x.Relation != nil {
				c.add(Use{Kind: KindColumn, Name: Name{Name: rt.Name}, Table: relName(x.Relation)}, rt.Location)
			}
		}
	case *pg_query.UpdateStmt:
		for _, t := range x.TargetList {
			if rt := t.GetResTarget(); rt != nil && x.Relation != nil {
				c.add(Use{Kind: KindColumn, Name: Name{Name: rt.Name}, Table: relName(x.Relation)}, rt.Location)
			}
		}
	case *pg_query.IndexStmt:
		for _, p := range x.IndexParams {
			ie := p.GetIndexElem()
			if ie == nil || x.Relation == nil {
				continue
			}
			if ie.Name != "" {
				c.add(Use{Kind: KindColumn, Name: Name{Name: ie.Name}, Table: relName(x.Relation)}, x.Relation.Location)
			}
			if parts := strs(ie.Opclass); len(parts) > 0 {
				c.add(Use{Kind: KindOpClass, Name: dotted(parts)}, x.Relation.Location)
			}
		}
	case *pg_query.CreateTrigStmt:
		if parts := strs(x.Funcname); len(parts) > 0 {
			c.add(Use{Kind: KindFunction, Name: dotted(parts)}, -1)
		}
	}
}

// column records the column a ColumnRef names: [column], [relation or alias, column] or
// [schema, relation, column]; a whole-row reference (t.*) names none.
func (c *useCollector) column(parts []string, loc int32) {
	u := Use{Kind: KindColumn}
	switch len(parts) {
	case 1:
		u.Name.Name = parts[0]
		if len(c.rels) == 1 {
			u.Table = c.rels[0]
		} else {
			u.Tables = c.rels
		}
	case 2:
		u.Name.Name = parts[1]
		if r, ok := c.aliases[parts[0]]; ok {
			u.Table = r
		}
	case 3:
		u.Name.Name, u.Table = parts[2], Name{Schema: parts[0], Name: parts[1]}
	default:
		return
	}
	c.add(u, loc)
}

// relName is a RangeVar's name, as written.
func relName(rv *pg_query.RangeVar) Name { return Name{Schema: rv.Schemaname, Name: rv.Relname} }

// dotted is the name a dotted list writes: [schema.]name (a catalog before the schema is
// dropped).
func dotted(parts []string) Name {
	n := Name{Name: parts[len(parts)-1]}
	if len(parts) >= 2 {
		n.Schema = parts[len(parts)-2]
	}
	return n
}

// walkMessages calls visit with m and every message inside it, in the order of the parse tree's
// fields (see eachChild).
func walkMessages(m protoreflect.Message, visit func(protoreflect.Message)) {
	visit(m)
	eachChild(m, func(c protoreflect.Message) { walkMessages(c, visit) })
}
