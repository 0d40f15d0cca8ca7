package scratch

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Null is how [Rows] renders SQL NULL (the COPY text format's marker), so that NULL and the
// string 'NULL' stay apart.
const Null = `\N`

// Rows is a query result as text: the column names and every value in PostgreSQL's text output
// format (what psql prints), NULL as [Null].
type Rows struct {
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// QueryOptions tune [Database.Query].
type QueryOptions struct {
	// Role, when set, is the role the query runs as (SET LOCAL ROLE), e.g. service_role.
	Role string
}

// Query runs one SQL statement as the install role inside a transaction that is rolled back
// afterwards, and returns its rows as text. Whatever the statement changes (counters, a
// last_recalled_at) is undone, so queries are independent of each other and of their order.
// A statement the server rejects is returned as a [*pgconn.PgError]-wrapping error.
func (d *Database) Query(ctx context.Context, sql string, opts QueryOptions) (*Rows, error) {
	conn, err := d.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return QueryRollback(ctx, conn, sql, opts)
}

// QueryRollback runs sql on conn as [Database.Query] does.
func QueryRollback(ctx context.Context, conn *pgx.Conn, sql string, opts QueryOptions) (*Rows, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, serverErrorf(err, "starting the query transaction")
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // always rolled back
	if opts.Role != "" {
		if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+pgx.Identifier{opts.Role}.Sanitize()); err != nil {
			return nil, serverErrorf(err, "SET ROLE %s", opts.Role)
		}
	}
	// The extended protocol with text results: every value comes back as the server prints it.
	rr := conn.PgConn().ExecParams(ctx, sql, nil, nil, nil, nil)
	out := &Rows{Columns: []string{}, Rows: [][]string{}}
	for _, fd := range rr.FieldDescriptions() {
		out.Columns = append(out.Columns, fd.Name)
	}
	for rr.NextRow() {
		vals := rr.Values()
		row := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				row[i] = Null
			} else {
				row[i] = string(v)
			}
		}
		out.Rows = append(out.Rows, row)
	}
	if _, err := rr.Close(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %w", serverMessage(err), err)
		}
		return nil, err
	}
	return out, nil
}
