package scratch_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// TestAdminSessionsAreKeptOnlyIdle: a superuser session given back idle outside a transaction
// serves the next statement, and is never handed out twice at once; one given back inside a
// transaction is closed, never handed out again; one given back after the server closed is
// closed.
func TestAdminSessionsAreKeptOnlyIdle(t *testing.T) {
	scratchtest.Server(t) // skip or fail like the others when Postgres is unavailable
	ctx := context.Background()
	srv, err := scratch.Start(ctx, scratch.Options{Cache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	take := func() (*pgx.Conn, func()) {
		t.Helper()
		conn, giveBack, err := srv.AdminSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return conn, giveBack
	}
	pid := func(c *pgx.Conn) uint32 { return c.PgConn().PID() }

	a, giveA := take()
	giveA()
	b, giveB := take()
	if pid(b) != pid(a) {
		t.Errorf("an idle session given back was not reused: backend %d, then %d", pid(a), pid(b))
	}
	c, giveC := take()
	if pid(c) == pid(b) {
		t.Fatalf("a session in use was handed out twice (backend %d)", pid(b))
	}
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	giveC()
	if !c.IsClosed() {
		t.Errorf("a session given back inside a transaction is still open")
	}
	giveB()
	d, giveD := take()
	e, giveE := take()
	for _, x := range []*pgx.Conn{d, e} {
		if pid(x) == pid(c) {
			t.Errorf("a session given back inside a transaction was handed out again (backend %d)", pid(c))
		}
	}
	giveE()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	giveD()
	if !d.IsClosed() {
		t.Errorf("a session given back after the server closed is still open")
	}
}
