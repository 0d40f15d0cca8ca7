package rerun

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fill"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// template returns the catalog of a fresh copy of the audit's template: the server's
// description of it (the gate describes every template it builds), else a snapshot of db on
// conn, which must be a fresh copy; with a nil db, a snapshot of a database of its own.
func (a *auditor) template(ctx context.Context, db *scratch.Database, conn *pgx.Conn) (*introspect.Snapshot, error) {
	if b := a.srv.TemplateDescription(a.opts.Dim, a.opts.Base); b != nil {
		var snap introspect.Snapshot
		if err := json.Unmarshal(b, &snap); err == nil {
			return &snap, nil
		}
	}
	if db == nil {
		fresh, drop, err := a.newDatabase(ctx)
		if err != nil {
			return nil, err
		}
		defer drop()
		db = fresh
	}
	r, done, err := reader(ctx, db, conn)
	if err != nil {
		return nil, err
	}
	defer done()
	s, err := a.capture(ctx, db, readers{catalog: r}, catalog)
	if err != nil {
		return nil, err
	}
	return s.snap, nil
}

// fill stands in for the fixture of the audit named audit ("rerun", "upgrade"): it fills the tables of db that are not in before (the
// catalog before the install, nil: the template's) with generated rows, as the install role,
// after (the catalog now, nil: read on conn, or on a session of its own when conn is nil)
// telling what they are.
func (a *auditor) fill(ctx context.Context, audit string, db *scratch.Database, conn *pgx.Conn, before, after *introspect.Snapshot) (*fill.Result, error) {
	var err error
	if before == nil {
		if before, err = a.template(ctx, nil, nil); err != nil {
			return nil, err
		}
	}
	if after == nil {
		r, done, err := reader(ctx, db, conn)
		if err != nil {
			return nil, err
		}
		s, err := a.capture(ctx, db, readers{catalog: r}, catalog)
		done()
		if err != nil {
			return nil, err
		}
		after = s.snap
	}
	plan := fill.New(before, after, fill.Options{})
	if len(plan.Tables) == 0 {
		return &fill.Result{Seed: plan.Seed, Skipped: plan.Skipped}, nil
	}
	user, err := db.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer user.Close(context.WithoutCancel(ctx))
	res, err := fill.Run(ctx, user, plan)
	if err != nil {
		return nil, db.Blame(ctx, "generating rows", fmt.Errorf("rerun: %w", err))
	}
	a.logf("%s: %s", audit, res.Summary())
	return res, nil
}
