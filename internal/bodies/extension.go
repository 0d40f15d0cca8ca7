package bodies

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// What runs on the superuser session: a privileged session (docs/architecture.md, "Privileged
// sessions"), whose SQL names pg_catalog's functions and operators explicitly and evaluates no
// value of a type the migration could have defined. The extension's own script runs with the
// search_path of its schema, which ledgercheck created a moment before under a random name: no
// name of the migration's is on it.

// availableSQL asks whether the server offers plpgsql_check.
const availableSQL = `SELECT pg_catalog.count(*) OPERATOR(pg_catalog.>) 0 FROM pg_catalog.pg_available_extensions e
WHERE e.name OPERATOR(pg_catalog.=) 'plpgsql_check'`

// executableSQL asks, for each function, whether anon or authenticated may execute it.
const executableSQL = `SELECT f.oid, pg_catalog.has_function_privilege('anon', f.oid, 'EXECUTE'),
  pg_catalog.has_function_privilege('authenticated', f.oid, 'EXECUTE')
FROM pg_catalog.unnest($1::pg_catalog.oid[]) AS f(oid)`

// extension is plpgsql_check created in db for the run, in a schema of its own.
type extension struct {
	schema string // quoted
}

// createExtension creates plpgsql_check in a new schema named ledgercheck_plpgsql_check_ and
// random hex (so that the migration cannot have made it first), usable by role (the install
// role). A server without it, or one that refuses it (the --dsn role may not create it), is not
// an error: why is the note, and ext is nil.
func createExtension(ctx context.Context, admin *pgx.Conn, role string) (ext *extension, why string, err error) {
	var ok bool
	if err := admin.QueryRow(ctx, availableSQL).Scan(&ok); err != nil {
		return nil, "", fmt.Errorf("asking for plpgsql_check: %w", err)
	}
	if !ok {
		return nil, "the PL/pgSQL bodies were not checked: the server does not offer plpgsql_check (pg_available_extensions); install it there (postgresql-NN-plpgsql-check) to have them checked", nil
	}
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return nil, "", err
	}
	ext = &extension{schema: pgx.Identifier{"ledgercheck_plpgsql_check_" + hex.EncodeToString(b)}.Sanitize()}
	sql := "CREATE SCHEMA " + ext.schema + "; CREATE EXTENSION plpgsql_check SCHEMA " + ext.schema +
		"; GRANT USAGE ON SCHEMA " + ext.schema + " TO " + pgx.Identifier{role}.Sanitize()
	// One query: its statements run in one transaction, all or none.
	if _, err := admin.Exec(ctx, sql); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return nil, fmt.Sprintf("the PL/pgSQL bodies were not checked: the server refused to create plpgsql_check (%s, SQLSTATE %s)", pe.Message, pe.Code), nil
		}
		return nil, "", fmt.Errorf("creating plpgsql_check: %w", err)
	}
	return ext, "", nil
}

// drop removes the extension and its schema, before anything else reads the database.
func (e *extension) drop(ctx context.Context, admin *pgx.Conn) error {
	if _, err := admin.Exec(context.WithoutCancel(ctx), "DROP EXTENSION plpgsql_check; DROP SCHEMA "+e.schema); err != nil {
		return fmt.Errorf("dropping plpgsql_check after the check: %w", err)
	}
	return nil
}

// executable returns the functions of oids that anon or authenticated may execute, asked of the
// server on the superuser session.
func executable(ctx context.Context, admin *pgx.Conn, oids []uint32) (map[uint32]string, error) {
	rows, err := admin.Query(ctx, executableSQL, oids)
	if err != nil {
		return nil, fmt.Errorf("asking who may execute the checked functions: %w", err)
	}
	out := map[uint32]string{}
	for rows.Next() {
		var oid uint32
		var anon, auth bool
		if err := rows.Scan(&oid, &anon, &auth); err != nil {
			return nil, err
		}
		switch {
		case anon && auth:
			out[oid] = "anon and authenticated"
		case anon:
			out[oid] = "anon"
		case auth:
			out[oid] = "authenticated"
		}
	}
	return out, rows.Err()
}
