package introspect

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// fingerprintSQL reads the catalog's fingerprint (see [Snapshot.Fingerprint]).
//
//go:embed fingerprint.sql
var fingerprintSQL string

// Fingerprint is the fingerprint of the catalog the snapshot was taken of, read in the
// snapshot's own transaction when [Options.Fingerprint] asked for it, else "". A fingerprint
// read later with the same options ([TakeFingerprint]) that equals it says the catalog has not
// changed since, so a snapshot taken then would be this one: no row of this database's catalogs
// was inserted, updated or deleted (each catalog's row count and the sum of its rows' xmin,
// fingerprint.sql), and the roles read as they did (the snapshot's own roles query: roles are
// cluster-wide, and other runs of the cluster change roles this snapshot does not show).
func (s *Snapshot) Fingerprint() string { return s.fingerprint }

// fingerprint joins the catalogs' part of a fingerprint and the roles query's result.
func fingerprint(catalogs, roles string) string { return catalogs + "\nroles: " + roles }

// TakeFingerprint reads the fingerprint of the catalog of the database db is connected to, as
// a snapshot taken with opts would ([Snapshot.Fingerprint]), in a read-only transaction of its
// own.
func TakeFingerprint(ctx context.Context, db Beginner, opts Options) (string, error) {
	queries, err := renderQueries(opts)
	if err != nil {
		return "", err
	}
	tx, err := db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return "", fmt.Errorf("starting the fingerprint's transaction: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only; nothing to keep
	for _, s := range settings {
		if _, err := tx.Exec(ctx, s); err != nil {
			return "", fmt.Errorf("%s: %w", s, err)
		}
	}
	var catalogs, roles string
	if err := tx.QueryRow(ctx, fingerprintSQL).Scan(&catalogs); err != nil {
		return "", fmt.Errorf("reading the catalog's fingerprint: %w", err)
	}
	if err := tx.QueryRow(ctx, queries["roles"]).Scan(&roles); err != nil {
		return "", fmt.Errorf("reading the roles for the catalog's fingerprint: %w", err)
	}
	return fingerprint(catalogs, roles), nil
}
