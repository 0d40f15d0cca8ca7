package fill

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
)

// maxTries is how many times one row is tried, with other values each time, before it is
// dropped.
const maxTries = 6

// budget bounds the time [Run] starts new tables in: a table not started by then (triggers that
// take long on every insert) is skipped, with that reason. One statement is bounded by the
// install role's statement_timeout.
var budget = 30 * time.Second

// Execer runs one SQL statement: a *pgx.Conn of the install role's.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Result is what [Run] inserted.
type Result struct {
	Seed uint64
	// Tables are the tables that got rows, in insert order, with how many.
	Tables []Filled
	// Skipped are the tables that got none, with why (the plan's and the server's reasons).
	Skipped []Skip
}

// Filled is a table and the rows inserted into it.
type Filled struct {
	Table        string
	Rows         int
	Prerequisite bool
}

// Rows is the number of rows inserted.
func (r *Result) Rows() int {
	n := 0
	for _, t := range r.Tables {
		n += t.Rows
	}
	return n
}

// Summary is "24 generated rows in 6 tables (seed 1)".
func (r *Result) Summary() string {
	return fmt.Sprintf("%s in %s (seed %d)", nouns.Count(r.Rows(), "generated row"), nouns.Count(len(r.Tables), "table"), r.Seed)
}

// Notes are one line per table left empty, for a report.
func (r *Result) Notes() []string {
	var out []string
	for _, s := range r.Skipped {
		out = append(out, fmt.Sprintf("generated rows: %s was not filled: %s", s.Table, s.Reason))
	}
	return out
}

// Run inserts p's rows on conn, a session of the role user SQL runs as, one autocommitted
// INSERT per row. A row the server rejects is tried again with other values for the columns
// its error names; a table none of whose rows goes in is skipped. The error is for what no
// row caused: a lost connection, a cancelled context.
func Run(ctx context.Context, conn Execer, p *Plan) (*Result, error) {
	res := &Result{Seed: p.Seed, Skipped: p.Skipped}
	got := map[string]*inserted{}
	start := time.Now()
	for _, t := range p.Tables {
		if time.Since(start) > budget {
			res.Skipped = append(res.Skipped, Skip{Table: t.Name, Reason: fmt.Sprintf("generating rows of the tables before it took more than %s", budget)})
			continue
		}
		ins, why, err := fillTable(ctx, conn, p.Seed, t, got)
		if err != nil {
			return nil, err
		}
		got[t.Name] = ins
		n := len(ins.rows)
		if n == 0 {
			res.Skipped = append(res.Skipped, Skip{Table: t.Name, Reason: why})
			continue
		}
		res.Tables = append(res.Tables, Filled{Table: t.Name, Rows: n, Prerequisite: t.Prerequisite})
	}
	return res, nil
}

// inserted is what went into a table: per row, the literals of its columns (a foreign key
// into the table takes them when they include the key's referenced columns).
type inserted struct {
	rows []map[string]string
}

func (ins *inserted) n() int {
	if ins == nil {
		return 0
	}
	return len(ins.rows)
}

// fillTable inserts t's rows and returns them and, when none went in, the last rejection.
func fillTable(ctx context.Context, conn Execer, seed uint64, t *Table, got map[string]*inserted) (*inserted, string, error) {
	ins := &inserted{}
	var last string
	for row := range t.Rows {
		attempts := make([]int, len(t.cols))
		nulls := make([]bool, len(t.fks))
		ok := false
		for range maxTries {
			sql, vals := t.insert(seed, row, attempts, nulls, got)
			tag, err := conn.Exec(ctx, sql)
			var pe *pgconn.PgError
			if err != nil && !errors.As(err, &pe) {
				return nil, "", fmt.Errorf("generating rows of %s: %w", t.Name, err)
			}
			if err == nil && tag.RowsAffected() > 0 {
				ok = true
				ins.rows = append(ins.rows, vals)
				break
			}
			if err == nil { // a foreign key found no row to reference
				last = t.noReferenceWhy(nulls)
				if !t.nullFirstEmpty(row, nulls, got) {
					break
				}
				continue
			}
			last = t.refusal(pe) // not its detail: "Failing row contains" values of now()
			t.vary(pe, attempts)
		}
		if !ok && row == 0 {
			break // the first row goes in in no way: the others will not either
		}
	}
	return ins, last, nil
}

// vary changes the values of the columns the server's error names (the columns of the
// constraint it violated, or of the domain), or of every column when it names none.
func (t *Table) vary(pe *pgconn.PgError, attempts []int) {
	idx, ok := t.byConstraint[pe.ConstraintName]
	if !ok || len(idx) == 0 {
		idx, ok = t.byDomain[pe.DataTypeName]
	}
	if !ok || len(idx) == 0 {
		idx = nil
		for i := range t.cols {
			idx = append(idx, i)
		}
	}
	for _, i := range idx {
		attempts[i]++
	}
}

// noReference says which foreign key found no row.
func (t *Table) noReference(nulls []bool) string {
	for i, fk := range t.fks {
		if !nulls[i] {
			return fmt.Sprintf("no row of %s to reference", fk.ref)
		}
	}
	return "no row to reference"
}

// nullFirstEmpty sets to NULL the first nullable foreign key whose referenced table got no
// generated row (the one that found nothing to reference); false when there is none.
func (t *Table) nullFirstEmpty(row int, nulls []bool, got map[string]*inserted) bool {
	for i, fk := range t.fks {
		if !nulls[i] && fk.nullable && got[fk.ref].n() == 0 {
			nulls[i] = true
			return true
		}
	}
	return false
}

// insert is the INSERT of row with the values of attempts (per column) and the foreign keys
// set to NULL in nulls, and the literals of the columns with a generated value. A foreign key
// takes row (row mod n) of the n rows generated in the referenced table: their literals when
// they include the referenced columns, else that row in physical order (the first row when
// none was generated).
func (t *Table) insert(seed uint64, row int, attempts []int, nulls []bool, got map[string]*inserted) (string, map[string]string) {
	lits := map[string]string{}
	if len(t.cols) == 0 {
		return "INSERT INTO " + t.quoted + " DEFAULT VALUES", lits
	}
	cols := make([]string, len(t.cols))
	vals := make([]string, len(t.cols))
	fixed := map[int]bool{}
	for i, c := range t.cols {
		cols[i] = quote(c.name)
		if f := t.fixed[c.name]; len(f) > 0 {
			vals[i], fixed[i] = f[row%len(f)], true
			lits[c.name] = vals[i]
			continue
		}
		if c.g != nil {
			vals[i] = literal(c.g.value(t.valueKey(seed, c.name, row), attempts[i]))
			lits[c.name] = vals[i]
		}
	}
	var from []string
	for i, fk := range t.fks {
		if allFixed(fk.cols, fixed) {
			continue
		}
		if nulls[i] {
			for _, ci := range fk.cols {
				vals[ci] = "NULL"
			}
			continue
		}
		parent := got[fk.ref]
		off := 0
		if fk.ref == t.Name {
			off = max(row-1, 0) // a key into its own table: the row before
		} else if n := parent.n(); n > 0 {
			off = row % n
		}
		// A second key into the same table takes the next row (edges from a row to another).
		for _, other := range t.fks[:i] {
			if other.ref == fk.ref {
				off++
			}
		}
		// A column of the key varied by its unique constraint takes the next row.
		for _, ci := range fk.cols {
			off += attempts[ci]
		}
		if n := parent.n(); n > 0 {
			off %= n
			if ref, ok := refLiterals(parent.rows[off], fk.refCols); ok {
				for j, ci := range fk.cols {
					vals[ci] = ref[j]
					lits[t.cols[ci].name] = ref[j]
				}
				continue
			}
		}
		alias := fmt.Sprintf("r%d", i)
		var sel []string
		for j, rc := range fk.refCols {
			sel = append(sel, quote(rc))
			vals[fk.cols[j]] = alias + "." + quote(rc)
		}
		from = append(from, fmt.Sprintf("(SELECT %s FROM %s ORDER BY ctid LIMIT 1 OFFSET %d) AS %s", strings.Join(sel, ", "), fk.refQuote, off, alias))
	}
	s := "INSERT INTO " + t.quoted + " (" + strings.Join(cols, ", ") + ") "
	if len(from) == 0 {
		return s + "VALUES (" + strings.Join(vals, ", ") + ")", lits
	}
	return s + "SELECT " + strings.Join(vals, ", ") + " FROM " + strings.Join(from, ", "), lits
}

// valueKey seeds the value of column in row: keyed by the table, or by the column's name alone
// when the plan shares values between tables (Options.Shared).
func (t *Table) valueKey(seed uint64, column string, row int) key {
	if t.shared {
		return key{seed, "", column, row}
	}
	return key{seed, t.Name, column, row}
}

// allFixed reports whether every column of cols has a fixed value.
func allFixed(cols []int, fixed map[int]bool) bool {
	for _, c := range cols {
		if !fixed[c] {
			return false
		}
	}
	return len(cols) > 0
}

// refLiterals returns the literals of cols in a row's, if it has them all.
func refLiterals(row map[string]string, cols []string) ([]string, bool) {
	out := make([]string, len(cols))
	for i, c := range cols {
		v, ok := row[c]
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// literal quotes v as an untyped string literal that reads the same whatever the session's
// standard_conforming_strings (which the file may have set for its role): an escape string.
func literal(v string) string {
	return "E'" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(v) + "'"
}
