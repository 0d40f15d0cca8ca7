package fill

import (
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// refusal is why the server refused a row, naming the columns that stopped it where its
// message names a constraint rather than them: `new row for relation "codes" violates check
// constraint "codes_code_check" (column code)`.
func (t *Table) refusal(pe *pgconn.PgError) string {
	idx := t.byConstraint[pe.ConstraintName]
	if pe.ConstraintName == "" || len(idx) == 0 || pe.ColumnName != "" {
		return pe.Message
	}
	return pe.Message + columnsSuffix(t, idx)
}

// noReferenceWhy is noReference, naming the key's columns.
func (t *Table) noReferenceWhy(nulls []bool) string {
	for i, fk := range t.fks {
		if !nulls[i] {
			return t.noReference(nulls) + columnsSuffix(t, fk.cols)
		}
	}
	return t.noReference(nulls)
}

// columnsSuffix is " (column a)" or " (columns a, b)" for the columns of t at idx.
func columnsSuffix(t *Table, idx []int) string {
	names := make([]string, len(idx))
	for i, c := range idx {
		names[i] = t.cols[c].name
	}
	word := "column "
	if len(names) > 1 {
		word = "columns "
	}
	return " (" + word + strings.Join(names, ", ") + ")"
}
