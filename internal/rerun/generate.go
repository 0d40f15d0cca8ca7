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
	return a.templateOf(ctx, a.opts.Base, db, conn)
}

// templateOf is [auditor.template] for the template of base at the audit's dimension; db, when
// not nil, must be a fresh copy of that template.
func (a *auditor) templateOf(ctx context.Context, base scratch.Base, db *scratch.Database, conn *pgx.Conn) (*introspect.Snapshot, error) {
	if snap := a.described(base); snap != nil {
		return snap, nil
	}
	if db == nil {
		fresh, drop, err := a.newDatabaseFrom(ctx, base)
		if err != nil {
			return nil, err
		}
		defer drop()
		if snap := a.described(base); snap != nil { // the template was built just now
			return snap, nil
		}
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

// described returns the server's description of the template of base, nil when there is none.
func (a *auditor) described(base scratch.Base) *introspect.Snapshot {
	if b := a.srv.TemplateDescription(a.opts.Dim, base); b != nil {
		var snap introspect.Snapshot
		if err := json.Unmarshal(b, &snap); err == nil {
			return &snap
		}
	}
	return nil
}

// fill stands in for the fixture of the audit named audit ("rerun", "upgrade"): it fills the tables of db that are not in before (the
// catalog before the install, nil: the template's) with generated rows, as the install role,
// after (the catalog now, nil: read on conn, or on a session of its own when conn is nil)
// telling what they are. When the template holds prerequisite files (the sidecars a sidecar
// needs), the tables they created are filled too, before being then the catalog without them:
// a file that works on its needs' rows (a view, a cleanup) is rerun over rows it could lose.
func (a *auditor) fill(ctx context.Context, audit string, db *scratch.Database, conn *pgx.Conn, before, after *introspect.Snapshot) (*fill.Result, error) {
	var err error
	switch {
	case a.opts.Base.Prepare != nil || len(a.opts.Base.Layers) > 0:
		plain := a.opts.Base // the same template without the prerequisite files
		plain.Prepare, plain.Key, plain.Layers = nil, "", nil
		if before, err = a.templateOf(ctx, plain, nil, nil); err != nil {
			return nil, err
		}
	case before == nil:
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
	plan := fill.New(before, after, fill.Options{Users: fill.Users})
	if len(plan.Tables) == 0 {
		return &fill.Result{Seed: plan.Seed, Skipped: plan.Skipped}, nil
	}
	if err := addUsers(ctx, db, conn, plan); err != nil {
		return nil, err
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

// addUsers adds the users a plan's rows belong to (a DEFAULT auth.uid() column, a key into
// auth.users) to auth.users, on a superuser's session (conn, or one of its own): no request
// sets auth.uid() for the rows, and the install role may not write auth.users.
func addUsers(ctx context.Context, db *scratch.Database, conn *pgx.Conn, plan *fill.Plan) error {
	if !plan.NeedsUsers() {
		return nil
	}
	admin, done, err := reader(ctx, db, conn)
	if err != nil {
		return err
	}
	defer done()
	if err := fill.AddUsers(ctx, admin, fill.Users); err != nil {
		return db.Blame(ctx, "generating rows", fmt.Errorf("rerun: %w", err))
	}
	return nil
}
