package locks

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Locked are the relations the runs' traces saw a lock on or a rewrite of, each once.
func Locked(runs []Run) []Relation {
	seen := map[uint32]bool{}
	var out []Relation
	for _, r := range runs {
		if r.Trace == nil {
			continue
		}
		rels := r.Trace.Relations()
		for _, st := range r.Trace.Steps() {
			oids := slices.Clone(st.Rewritten)
			for _, tk := range st.Taken {
				oids = append(oids, tk.Rel)
			}
			for _, o := range oids {
				if !seen[o] {
					seen[o] = true
					out = append(out, rels[o])
				}
			}
		}
	}
	return out
}

// Measure reads the size of each of rels in the database conn is a session of: its rows, counted,
// and its size on disk with its indexes and TOAST. conn is the run's reader (scratch's
// Database.ConnectReader: it reads table contents without privilege); the query names its
// relation by its quoted name and pg_catalog's functions only. A relation the file dropped or
// renamed has no size (the server's error says so); any other error is returned.
func Measure(ctx context.Context, conn *pgx.Conn, rels []Relation) (map[uint32]Size, error) {
	out := map[uint32]Size{}
	for _, r := range rels {
		var sz Size
		err := conn.QueryRow(ctx, "SELECT (SELECT pg_catalog.count(*) FROM "+pgx.Identifier{r.Schema, r.Name}.Sanitize()+
			"), pg_catalog.pg_total_relation_size($1::pg_catalog.oid)", r.OID).Scan(&sz.Rows, &sz.Bytes)
		var pe *pgconn.PgError
		switch {
		case errors.As(err, &pe):
			continue
		case err != nil:
			return nil, fmt.Errorf("measuring %s: %w", r.Qualified(), err)
		}
		out[r.OID] = sz
	}
	return out, nil
}
