package introspect

import (
	"context"
	"os"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// footprintOf is the install step's round (internal/install.Footprint, which this package's
// tests cannot import): snapshot db, run the script src in it as the install role, snapshot
// again, with ledgercheck's function body normalizer.
func footprintOf(ctx context.Context, db *scratch.Database, name string, src []byte, opts Options) (*Footprint, *Snapshot, error) {
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	opts = testOptions(opts, db)
	before, err := Take(ctx, conn, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := sqlscript.ExecFile(ctx, db, name, src); err != nil {
		return nil, nil, err
	}
	after, err := Take(ctx, conn, opts)
	if err != nil {
		return nil, nil, err
	}
	return Diff(before, after), after, nil
}

// testOptions are opts with the roles of db's server and ledgercheck's normalizers, as the
// install step sets them.
func testOptions(opts Options, db *scratch.Database) Options {
	opts.InstallRole, opts.AdminRole = db.InstallRole(), db.AdminRole()
	opts.NormalizeBody, opts.NormalizeView = pgsql.NormalizeBody, pgsql.NormalizeView
	return opts
}
