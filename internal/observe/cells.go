package observe

import (
	"github.com/ledgercheck/ledgercheck/internal/report"
)

// cells is the access matrix of the observation: every action run but the internal ones (which
// policy let a read through), in the order they ran.
func (o *observer) cells() []report.Access {
	var out []report.Access
	for _, d := range o.done {
		if d.a.kind == actPolicy || d.a.kind == actWithoutOthers {
			continue
		}
		out = append(out, o.cell(d))
	}
	return out
}

// cell is one entry of the matrix.
func (o *observer) cell(d *done) report.Access {
	a := d.a
	c := report.Access{Model: o.in.Model, Persona: a.persona.Name, Action: a.kind, Allowed: d.ok, Rows: d.rows, Present: -1, RanSQL: d.marker}
	if a.hostile {
		c.Value = a.value
	}
	if a.persona.setsClientValue() {
		c.Value = a.value
	}
	switch {
	case a.fn != nil:
		c.Object = a.fn.Object()
		if a.fn.Returns == "void" {
			c.Rows = 0
		}
	case a.kind == ActDirect:
		c.Object = "table " + a.value
		c.Present = o.presentOf(a.value)
	case a.rel != nil:
		c.Object = a.rel.Object()
		c.Of, c.Present = o.rowsOf(a.rel)
		if a.kind == ActGrant {
			c.Value, c.Present = a.value, -1
		}
		if a.kind == ActSelect || a.kind == ActEnrol || a.kind == ActPromote {
			if cols := a.rel.columns(a.persona.Role, "SELECT"); len(cols) < len(a.rel.Columns) {
				c.Columns = cols
			}
		}
		switch a.kind {
		case ActEnrol:
			c.Value = "another user's rows of " + a.via.Ident + ", copied with the user's own id"
		case ActPromote:
			c.Value = a.value + " on the user's own row of " + a.via.Ident
			if a.fn != nil {
				c.Value = a.value + ", which writes the user's own row of " + a.via.Ident
			}
		}
	}
	if d.err != nil {
		c.Error = d.err.Message
	}
	if own, others, ok := d.ownership(); ok {
		c.Own, c.Others = &own, &others
	}
	for _, e := range d.effects {
		c.SideEffects = append(c.SideEffects, report.SideEffect{Table: e.Table, Inserted: e.Inserted, Updated: e.Updated, Deleted: e.Deleted, Read: e.Read, Unwritable: e.Unwritable})
	}
	return c
}

// ownership is, of the rows a signed-in persona's select counted, its own and other users'
// (the other signed-in user's and C's), when the select could tell.
func (d *done) ownership() (own, others int64, ok bool) {
	a := d.a
	if !d.ok || !a.persona.signedIn() || a.owner == "" || len(d.counts) < 4 || a.kind != ActSelect && a.kind != ActEnrol {
		return 0, 0, false
	}
	byUser := map[string]int64{UserA: d.counts[1], UserB: d.counts[2], UserC: d.counts[3]}
	own = byUser[a.persona.ID]
	return own, byUser[a.persona.other()] + byUser[UserC], true
}

// rowsOf is the relation whose rows r's rows are, and how many it holds: r itself for a table,
// a view's one base table ("" and -1 for a view over several or none counted).
func (o *observer) rowsOf(r *Relation) (string, int64) {
	if r.Kind == "table" || r.Kind == "partitioned table" {
		return "", o.presentOf(r.Ident)
	}
	if len(r.Bases) == 1 {
		if n := o.presentOf(r.Bases[0]); n >= 0 {
			return "table " + r.Bases[0], n
		}
		return "table " + r.Bases[0], -1
	}
	return "", -1
}

// presentOf is the rows present in a table, -1 when not counted.
func (o *observer) presentOf(ident string) int64 {
	if p, ok := o.present.of(ident); ok {
		return int64(p.all)
	}
	return -1
}
