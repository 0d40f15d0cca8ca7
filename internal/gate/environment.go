package gate

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/audit"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// environmentRows are the environment's tables (storage, auth, cron, vault, pg_net's queue) as
// the reader role read them just before and just after a variant's install: what the file
// changed there at deploy time, which the audit reports (audit.Environment).
type environmentRows struct {
	before, after *introspect.Digest
	tooLarge      bool // they hold more than the run reads (limits.read_size)
}

// contentReader opens the session of the reader role that reads db's table contents, when the
// request audits or reruns (nil otherwise).
func (p *pipeline) contentReader(ctx context.Context, db *scratch.Database) (*pgx.Conn, error) {
	if !p.steps.Audit && !p.steps.Rerun {
		return nil, nil
	}
	return db.ConnectReader(ctx)
}

// read reads the environment's tables on content into before or after, when audits.
func (e *environmentRows) read(ctx context.Context, db *scratch.Database, content *pgx.Conn, audits, before bool) error {
	if content == nil || !audits || e.tooLarge {
		return nil
	}
	opts := audit.EnvironmentOptions(introspect.Options{})
	opts.DigestBytes = db.ReadSize()
	d, err := introspect.TakeDigest(ctx, content, opts)
	var big *introspect.DigestTooLargeError
	if errors.As(err, &big) {
		e.tooLarge, e.before, e.after = true, nil, nil
		return nil
	}
	if err != nil {
		return db.Blame(ctx, "reading the environment's tables", fmt.Errorf("the environment's tables of %s: %w", db.Name, err))
	}
	if before {
		e.before = d
	} else {
		e.after = d
	}
	return nil
}

// findings are the audit's findings of what the install of r changed in the environment's
// tables.
func (e *environmentRows) findings(r *variantRun) []finding.Finding {
	if e.tooLarge {
		return []finding.Finding{{Phase: finding.PhaseAudit, Rule: audit.RuleEnvironmentDataChanged, Severity: finding.SevWarning,
			Pos:     finding.Position{File: r.v.File, Line: 1, Col: 1},
			Message: "the environment's tables (storage, auth, cron, vault, pg_net) hold more rows after the install than ledgercheck reads (limits.read_size), so what the file changed there is not known"}}
	}
	return audit.Environment(e.before, e.after, r.file, r.stmts, r.v.File)
}
