package bodies_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/bodies"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// A session of the install role that user SQL terminates between two of the check's statements
// (a migration ending every session of its role, the other variant's install among them) is
// closed by the server, and the check's next statement fails to write: the check is cut short
// with a note, the server being up, and the run goes on. A statement's own error on a live
// session is an error, without a note.
func TestSessionTerminatedBetweenStatementsCutsTheCheckShort(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	conn := scratchtest.Connect(t, db)
	admin := scratchtest.ConnectAdmin(t, db)
	var ended bool
	// pg_terminate_backend's timeout waits until the session is gone.
	if err := admin.QueryRow(ctx, "SELECT pg_catalog.pg_terminate_backend($1, 10000)", conn.PgConn().PID()).Scan(&ended); err != nil || !ended {
		t.Fatalf("terminating the install role's session: %v (ended %v)", err, ended)
	}
	_, err := conn.Exec(ctx, "SELECT 1")
	if err == nil {
		t.Fatal("the terminated session ran a statement")
	}
	// The peer of a Unix socket is gone: the write fails before any message is read (40 runs of
	// 40). Were the server's message read, this would be the 57P01 case, tested elsewhere.
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) {
		t.Fatalf("the server's message was read (%s), not a failed write: the case is not exercised", pe.Code)
	}
	note, err := bodies.Interrupted(ctx, db, conn, err)
	if err != nil || note == "" {
		t.Errorf("a session terminated between two statements: error %v, note %q; want a note and no error", err, note)
	}

	live := scratchtest.Connect(t, db)
	_, err = live.Exec(ctx, "SELECT no_such_column FROM pg_catalog.pg_class")
	if note, got := bodies.Interrupted(ctx, db, live, err); got == nil || note != "" {
		t.Errorf("a statement's own error on a live session: error %v, note %q; want the error", got, note)
	}
}
