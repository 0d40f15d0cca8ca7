package cli

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// TestServerErrorReachesTheCLI: when the --dsn server refuses the run, the error a command
// returns to Run (through cobra and commandError) still holds the server's *pgconn.PgError, so
// errors.As finds its SQLSTATE, while its message stays the one line Run prints.
func TestServerErrorReachesTheCLI(t *testing.T) {
	dsn := hostDSN(t, " user=ledgercheck_no_such_role")
	g := &globals{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, quiet: true}
	root := newRoot(g)
	root.SetArgs([]string{"check", "--config", repoConfig, "-q", "--dsn", dsn})
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	err := commandError(root, root.ExecuteContext(context.Background()))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "28000" {
		t.Fatalf("error %v: errors.As finds no server error of SQLSTATE 28000 (found %+v)", err, pe)
	}
	if fault.KindOf(err) != fault.KindEnv || !strings.HasPrefix(err.Error(), "cannot connect to --dsn server: FATAL: role \"ledgercheck_no_such_role\" does not exist (SQLSTATE 28000)") {
		t.Errorf("error %q (kind %v): want the environment error that names the server's message", err, fault.KindOf(err))
	}
}
