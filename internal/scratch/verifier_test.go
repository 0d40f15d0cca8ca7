package scratch_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// Every role ledgercheck logs in as stores the SCRAM verifier ledgercheck derived, with its own
// iteration count, never a password the server hashed: the server logs a role in against the
// verifier with the secret, and refuses a wrong one, as it does any SCRAM password.
func TestRolesLogInAgainstTheirVerifiers(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	admin := scratchtest.ConnectAdmin(t, db)
	for _, role := range []string{db.AdminRole(), db.InstallRole(), db.ObserverRole(), db.ReaderRole()} {
		var stored string
		if err := admin.QueryRow(ctx, `SELECT rolpassword FROM pg_catalog.pg_authid WHERE rolname = $1`, role).Scan(&stored); err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		if !strings.HasPrefix(stored, "SCRAM-SHA-256$64:") {
			t.Errorf("role %s stores %.20s…, not ledgercheck's verifier (SCRAM-SHA-256$64:…)", role, stored)
		}
	}

	const secret = "0123456789abcdef0123456789abcdef"
	v, err := scratch.ScramVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	probe := db.Name + "_probe" // the shared server's roles are the cluster's: one of this database's own
	if _, err := admin.Exec(ctx, `CREATE ROLE "`+probe+`" LOGIN PASSWORD '`+v+`'`); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(ctx, `DROP ROLE "`+probe+`"`)
	conn, err := pgx.ConnectConfig(ctx, db.ConfigAs(probe, secret))
	if err != nil {
		t.Fatalf("logging in with the secret against its verifier: %v", err)
	}
	conn.Close(ctx)
	_, err = pgx.ConnectConfig(ctx, db.ConfigAs(probe, secret[:31]+"0"))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "28P01" {
		t.Errorf("a wrong secret: got %v, want the server's invalid_password (28P01)", err)
	}
	if _, err := scratch.ScramVerifier("a secret with spaces"); err == nil {
		t.Error("a secret SASLprep could change was accepted")
	}
}
