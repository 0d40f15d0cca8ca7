package fill

import "github.com/ledgercheck/ledgercheck/introspect"

// Name is a table's name as plans name them ([Table.Name]): schema.name, each part quoted only
// when it must be.
func Name(schema, name string) string { return display(schema, name) }

// Table returns the plan's table named name (as [Table.Name] shows it), or nil.
func (p *Plan) Table(name string) *Table {
	for _, t := range p.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Row is the INSERT of one row of t as [Run] would insert row number row (its first attempt),
// for a caller that runs it itself (the access observation inserts as a persona): the columns of
// fixed take those SQL literals (or NULL) instead, and a foreign key takes the first row of
// refs[the referenced table] (the referenced columns' values as text, quoted here) when it has
// them, else the row the planner would reference.
func (t *Table) Row(seed uint64, row int, fixed map[string]string, refs map[string][]map[string]string) string {
	c := *t
	c.fixed = map[string][]string{}
	for k, v := range t.fixed {
		c.fixed[k] = v
	}
	for k, v := range fixed {
		c.fixed[k] = []string{v}
	}
	got := map[string]*inserted{}
	for table, rows := range refs {
		ins := &inserted{}
		for _, r := range rows {
			lits := map[string]string{}
			for col, v := range r {
				lits[col] = literal(v)
			}
			ins.rows = append(ins.rows, lits)
		}
		got[table] = ins
	}
	sql, _ := c.insert(seed, row, make([]int, len(c.cols)), make([]bool, len(c.fks)), got)
	return sql
}

// References are the tables t's foreign keys reference, each with the referenced columns.
func (t *Table) References() map[string][]string {
	out := map[string][]string{}
	for _, fk := range t.fks {
		out[fk.ref] = fk.refCols
	}
	return out
}

// Values generates values of the catalog's types as the rows do: for a caller that needs a
// value of a type outside a table (a function's argument).
type Values struct {
	ts   *types
	seed uint64
}

// NewValues returns the generator of the types of snap, seeded with seed.
func NewValues(snap *introspect.Snapshot, seed uint64) *Values {
	return &Values{ts: newTypes(snap), seed: seed}
}

// Literal returns a value of type typ (as format_type prints it; schema is where unqualified
// user types are looked up first) as an SQL literal, the n-th of its kind, and whether the type
// has values.
func (v *Values) Literal(typ, schema string, n int) (string, bool) {
	g := v.ts.generator(typ, schema, 0)
	if !g.ok {
		return "", false
	}
	return literal(g.value(key{v.seed, "", typ, n}, 0)), true
}
