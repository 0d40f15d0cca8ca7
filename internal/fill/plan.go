package fill

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// DefaultSeed seeds the values when [Options.Seed] is 0, and DefaultRows is how many rows each
// table gets when [Options.Rows] is 0.
const (
	DefaultSeed = 1
	DefaultRows = 4
)

// maxTables bounds a plan: a file that creates more tables has the first ones filled, by name.
const maxTables = 200

// Options configure a [Plan].
type Options struct {
	Seed uint64
	Rows int
	// Tables, when not nil, are the tables to fill (as [Table.Name] shows them) instead of the
	// tables the install created; the tables their foreign keys reference are filled too.
	Tables []string
	// Fixed gives columns the values they take instead of generated ones: Fixed[table][column]
	// is a list of SQL literals (or NULL), row i taking the (i mod n)th; such a table gets at
	// least a row for each. The access observation (internal/observe) fixes owner columns to
	// the signed-in personas' ids.
	Fixed map[string]map[string][]string
	// Shared generates the same value for columns of the same name and type in different
	// tables (row i of every team_id column is one value), so that rows of tables that join on
	// such a column without a foreign key meet.
	Shared bool
	// Users are ids of users in auth.users (users.go): a column that names a user (a DEFAULT
	// auth.uid() column, a NOT NULL key into auth.users) takes them row by row instead of a
	// default no request sets or a row of auth.users to generate. None: such a column is left
	// to its default, or its key to the rows of auth.users.
	Users []string
}

// Plan is the rows to generate: the tables in insert order (each after the tables its foreign
// keys reference), and the tables that cannot be filled with why.
type Plan struct {
	Seed    uint64
	Tables  []*Table
	Skipped []Skip
}

// Skip is a table left empty, and why.
type Skip struct {
	Table  string
	Reason string
}

// Table is one table's rows to generate.
type Table struct {
	// Name is the table schema-qualified, as a report shows it; quoted is it quoted for SQL.
	Name   string
	quoted string
	// Prerequisite marks a table the file did not create, filled because a foreign key of one
	// it created references it (as a fixture would fill public.thoughts for a sidecar's table).
	Prerequisite bool
	// Rows is how many rows are tried.
	Rows int
	cols []*column
	fks  []*fkGroup
	// byConstraint maps a CHECK constraint, unique constraint or unique index (by name) to the
	// indexes in cols of the columns it names: the columns to vary when the server rejects a
	// row because of it.
	byConstraint map[string][]int
	// byDomain maps a domain (by name) to the columns of that type.
	byDomain map[string][]int
	// fixed are the columns of Options.Fixed, shared whether the values are keyed by table.
	fixed  map[string][]string
	shared bool
	// users are the columns that take Options.Users (users.go).
	users []string
}

// column is a column the rows give a value.
type column struct {
	name string
	g    *gen // nil for a foreign key column
	fk   int  // its foreign key in Table.fks, or -1
}

// fkGroup is a foreign key: its columns take the values of a row of the referenced table.
type fkGroup struct {
	cols     []int  // indexes in Table.cols
	ref      string // the referenced table, as Table.Name
	refQuote string
	refCols  []string
	nullable bool // every column may be NULL: with no row to reference, the key is NULL
}

// Columns returns the names of the columns the rows give a value, in table order.
func (t *Table) Columns() []string {
	out := make([]string, len(t.cols))
	for i, c := range t.cols {
		out[i] = c.name
	}
	return out
}

// New plans rows for the tables of after that before does not have (the tables an install
// created, before being the catalog it started from) and for the tables their foreign keys
// reference, transitively. Partitions are filled through their parent; foreign tables are not
// filled. The plan depends on the snapshots and opts alone.
func New(before, after *introspect.Snapshot, opts Options) *Plan {
	if opts.Seed == 0 {
		opts.Seed = DefaultSeed
	}
	if opts.Rows <= 0 {
		opts.Rows = DefaultRows
	}
	p := &Plan{Seed: opts.Seed}
	old := map[[2]string]bool{}
	if opts.Tables != nil {
		before = &introspect.Snapshot{} // the scope is Tables, not what the install created
	}
	if before != nil {
		for _, t := range before.Tables {
			old[[2]string{t.Schema, t.Name}] = true
		}
	}
	tables := map[string]*introspect.Table{}
	var scope []string
	for i := range after.Tables {
		t := &after.Tables[i]
		id := display(t.Schema, t.Name)
		tables[id] = t
		inScope := !old[[2]string{t.Schema, t.Name}]
		if opts.Tables != nil {
			inScope = slices.Contains(opts.Tables, id)
		}
		if inScope && fillable(t) {
			scope = append(scope, id)
		}
	}
	ts := newTypes(after)
	refd := referenced(after, tables)
	planned := map[string]*Table{}
	created := map[string]bool{}
	for _, id := range scope {
		created[id] = true
	}
	// The scope, then the tables its foreign keys reference, breadth first.
	queue := slices.Clone(scope)
	for len(queue) > 0 && len(planned) < maxTables {
		id := queue[0]
		queue = queue[1:]
		if planned[id] != nil {
			continue
		}
		t := tables[id]
		pt, refs, reason := planTable(t, ts, tables, refd[id], opts.Rows, len(opts.Users) > 0)
		if reason != "" {
			p.Skipped = append(p.Skipped, Skip{Table: id, Reason: reason})
			continue
		}
		pt.Prerequisite = !created[id]
		pt.fixed, pt.shared = opts.Fixed[id], opts.Shared
		if len(pt.users) > 0 {
			pt.fixed = maps.Clone(pt.fixed)
			if pt.fixed == nil {
				pt.fixed = map[string][]string{}
			}
			for _, c := range pt.users {
				if pt.fixed[c] == nil {
					pt.fixed[c] = userLiterals(opts.Users)
				}
			}
		}
		for _, vals := range pt.fixed {
			pt.Rows = max(pt.Rows, len(vals)) // a row for each fixed value
		}
		planned[id] = pt
		for _, r := range refs {
			if rt := tables[r]; rt != nil && planned[r] == nil && fillable(rt) {
				queue = append(queue, r)
			}
		}
	}
	p.Tables = order(planned)
	slices.SortFunc(p.Skipped, func(a, b Skip) int { return cmp.Compare(a.Table, b.Table) })
	return p
}

// fillable reports whether rows can be inserted into t directly.
func fillable(t *introspect.Table) bool {
	return (t.Kind == "table" || t.Kind == "partitioned table") && t.PartitionOf == ""
}

// referenced returns, per table, the columns a foreign key of a table references.
func referenced(snap *introspect.Snapshot, tables map[string]*introspect.Table) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, t := range snap.Tables {
		for _, c := range t.Constraints {
			if c.Type != "foreign key" {
				continue
			}
			if fk, ok := parseForeignKey(c.Definition); ok {
				if fk.refSchema == "" {
					fk.refSchema = resolveTable(tables, fk.table, t.Schema)
				}
				id := display(fk.refSchema, fk.table)
				if out[id] == nil {
					out[id] = map[string]bool{}
				}
				for _, rc := range fk.refCols {
					out[id][rc] = true
				}
			}
		}
	}
	return out
}

// planTable plans t's rows; refs are the tables its foreign keys reference. A column with no
// default that has no value of its type skips the table when it is NOT NULL (reason), and is
// left NULL otherwise. A column a foreign key references (refd) gets generated values even when
// it has a default (gen_random_uuid()), so that the rows that reference it are reproducible
// too; not when the default draws from a sequence, which the file's own inserts would then
// collide with.
// With users, a column that names a user (userColumn) is planned, to take their ids.
func planTable(t *introspect.Table, ts *types, tables map[string]*introspect.Table, refd map[string]bool, rows int, users bool) (pt *Table, refs []string, reason string) {
	pt = &Table{Name: display(t.Schema, t.Name), quoted: quote(t.Schema) + "." + quote(t.Name), Rows: rows,
		byConstraint: map[string][]int{}, byDomain: map[string][]int{}}
	var names []string
	for _, c := range t.Columns {
		names = append(names, c.Name)
	}
	// Foreign keys first: their columns take the referenced rows' values even when they have a
	// default.
	fkOf, fks := foreignKeys(t, tables)
	colIndex := map[string]int{}
	for _, c := range t.Columns {
		_, inFK := fkOf[c.Name]
		keyed := refd[c.Name] && !strings.Contains(c.Default, "nextval(")
		user := users && c.Generated == "" && c.Identity == "" && userColumn(t, c)
		if !inFK && !user && (c.Default != "" && !keyed || c.Identity != "" || c.Generated != "") {
			continue
		}
		if c.Generated != "" || c.Identity == "always" {
			continue // a key column the server must fill; the key takes what it gives
		}
		if user {
			pt.users = append(pt.users, c.Name)
		}
		col := &column{name: c.Name, fk: -1}
		if inFK {
			col.fk = fkOf[c.Name]
		} else {
			col.g = ts.generator(c.Type, t.Schema, 0)
			if !col.g.ok {
				if c.NotNull {
					return nil, nil, fmt.Sprintf("no value is generated for column %s of type %s", c.Name, c.Type)
				}
				continue
			}
			if ut, ok := ts.lookup(parseType(c.Type), t.Schema); ok && ut.Kind == "domain" {
				pt.byDomain[ut.Name] = append(pt.byDomain[ut.Name], len(pt.cols))
			}
		}
		colIndex[c.Name] = len(pt.cols)
		pt.cols = append(pt.cols, col)
	}
	notNull := map[string]bool{}
	for _, c := range t.Columns {
		notNull[c.Name] = c.NotNull
	}
	for _, fk := range fks {
		g := &fkGroup{ref: display(fk.refSchema, fk.table), refQuote: quote(fk.refSchema) + "." + quote(fk.table), refCols: fk.refCols, nullable: true}
		for _, col := range fk.cols {
			i, ok := colIndex[col]
			if !ok {
				return nil, nil, fmt.Sprintf("the foreign key column %s is generated by the server", col)
			}
			g.cols = append(g.cols, i)
			g.nullable = g.nullable && !notNull[col]
		}
		pt.fks = append(pt.fks, g)
		if len(fk.cols) != 1 || !slices.Contains(pt.users, fk.cols[0]) { // a user's key takes the users'
			refs = append(refs, g.ref)
		}
	}
	pt.varyOn(t, names, colIndex)
	return pt, refs, ""
}

// foreignKeys are t's foreign keys whose definitions parse (a column in two takes the
// first's rows), and the index in them of each of their columns.
func foreignKeys(t *introspect.Table, tables map[string]*introspect.Table) (fkOf map[string]int, fks []foreignKey) {
	fkOf = map[string]int{}
	for _, c := range t.Constraints {
		if c.Type != "foreign key" {
			continue
		}
		fk, ok := parseForeignKey(c.Definition)
		if !ok {
			continue
		}
		if fk.refSchema == "" {
			fk.refSchema = resolveTable(tables, fk.table, t.Schema)
		}
		dup := false
		for _, col := range fk.cols {
			if _, ok := fkOf[col]; ok {
				dup = true
			}
		}
		if dup {
			continue // a column in two foreign keys takes the first's rows
		}
		for _, col := range fk.cols {
			fkOf[col] = len(fks)
		}
		fks = append(fks, fk)
	}
	return fkOf, fks
}

// varyOn records what to vary when the server names a constraint or a unique index of t: the
// planned columns (colIndex) it mentions among names; a CHECK on one column also gives that
// column's generator the literals it names.
func (pt *Table) varyOn(t *introspect.Table, names []string, colIndex map[string]int) {
	for _, c := range t.Constraints {
		switch c.Type {
		case "check", "unique", "primary key":
			var idx []int
			for _, name := range mentioned(c.Definition, names) {
				if i, ok := colIndex[name]; ok {
					idx = append(idx, i)
				}
			}
			pt.byConstraint[c.Name] = idx
			if c.Type == "check" && len(idx) == 1 && pt.cols[idx[0]].g != nil {
				s, n := literals(c.Definition)
				g := pt.cols[idx[0]].g
				g.addCandidates(g.t, s, n)
			}
		}
	}
	for _, ix := range t.Indexes {
		if ix.Unique && pt.byConstraint[ix.Name] == nil {
			var idx []int
			// The key is after "USING method"; the table's name before it is not a column.
			def := ix.Definition
			if i := strings.Index(def, " USING "); i >= 0 {
				def = def[i:]
			}
			for _, name := range mentioned(def, names) {
				if i, ok := colIndex[name]; ok {
					idx = append(idx, i)
				}
			}
			pt.byConstraint[ix.Name] = idx
		}
	}
}

// resolveTable returns the schema of the table name that a constraint printed unqualified
// (visible on the search path of the session that read it): the table's own schema, public, or
// the only schema with a table of that name.
func resolveTable(tables map[string]*introspect.Table, name, schema string) string {
	for _, s := range []string{schema, "public"} {
		if _, ok := tables[display(s, name)]; ok {
			return s
		}
	}
	var found []string
	for _, t := range tables {
		if t.Name == name {
			found = append(found, t.Schema)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return "public"
}

// order returns the planned tables with each after the tables its foreign keys reference
// (ties and cycles broken by name: a key into a table not filled yet is NULL, or the row is
// dropped).
func order(planned map[string]*Table) []*Table {
	names := make([]string, 0, len(planned))
	for n := range planned {
		names = append(names, n)
	}
	slices.Sort(names)
	done := map[string]bool{}
	var out []*Table
	for len(out) < len(names) {
		progressed := false
		for _, n := range names {
			if done[n] {
				continue
			}
			ready := true
			for _, fk := range planned[n].fks {
				if fk.ref != n && planned[fk.ref] != nil && !done[fk.ref] {
					ready = false
				}
			}
			if ready {
				done[n] = true
				out = append(out, planned[n])
				progressed = true
			}
		}
		if !progressed { // a cycle: the first by name goes first
			for _, n := range names {
				if !done[n] {
					done[n] = true
					out = append(out, planned[n])
					break
				}
			}
		}
	}
	return out
}

// quote quotes an identifier for SQL.
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// display is schema.name as a report shows it: each part quoted only when it must be.
func display(schema, name string) string {
	part := func(s string) string {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
				return quote(s)
			}
		}
		if s == "" {
			return quote(s)
		}
		return s
	}
	return part(schema) + "." + part(name)
}
