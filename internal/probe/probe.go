// Package probe runs the configuration's probes: queries whose results must be the same on the
// artifact's install and each port's (internal/parity compares them). Each probe runs on an
// install with the fixture loaded, in a transaction that is rolled back, so probes only read.
package probe

import (
	"context"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// Probe is a query whose results must be the same on both installs (see config.Probe).
type Probe struct {
	Name      string
	SQL       string
	Tolerance float64
	Role      string
	// Pos is where the configuration writes the probe (zero when it is not from a file): where
	// a difference of the probe points when the port creates nothing the probe reads.
	Pos finding.Position
}

// Run runs every probe on db at dimension dim (`:dim` substituted), each in a transaction rolled
// back, as its role, on one session of the install role's: rows and errs are each probe's
// result, in probe order (the rows, or the error the probe failed with). The error is for
// anything else: no session, a cancelled context.
func Run(ctx context.Context, db *scratch.Database, probes []Probe, dim int) (rows []*scratch.Rows, errs []error, err error) {
	n := len(probes)
	rows, errs = make([]*scratch.Rows, n), make([]error, n)
	if n == 0 {
		return rows, errs, nil
	}
	conn, err := db.Connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for i, p := range probes {
		rows[i], errs[i] = scratch.QueryRollback(ctx, conn, scratch.SubstituteDim(p.SQL, dim), scratch.QueryOptions{Role: p.Role})
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
	}
	return rows, errs, nil
}
