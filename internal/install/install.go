// Package install is the gate's install step: it installs a parsed migration into a scratch
// database and reads what that changed in the catalog (its footprint), and it turns a variant
// the server rejects into an install-failed finding. It joins the packages that must not know
// each other: the SQL front end (internal/pgsql, through internal/sqlscript), the scratch server
// (internal/scratch) and the public catalog reader (introspect), which takes a connection and
// links neither (docs/architecture.md).
package install

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// SnapshotOptions returns opts for snapshots of db: the server's install role and superuser
// shown by their Supabase names ([introspect.Options.InstallRole]), and ledgercheck's
// normalizers ([Normalizers]).
func SnapshotOptions(opts introspect.Options, db *scratch.Database) introspect.Options {
	opts.InstallRole, opts.AdminRole = db.InstallRole(), db.AdminRole()
	return Normalizers(opts)
}

// Normalizers returns opts with ledgercheck's parser as the normalizer of function bodies and
// view definitions where opts has none: a body whose layout or comments alone changed is a
// cosmetic difference, and so is a view definition printed by PostgreSQL 15 and by 17.
func Normalizers(opts introspect.Options) introspect.Options {
	if opts.NormalizeBody == nil {
		opts.NormalizeBody = normalizeBody
	}
	if opts.NormalizeView == nil {
		opts.NormalizeView = pgsql.NormalizeView
	}
	return opts
}

// Snapshot takes a snapshot of db on a superuser session (user SQL cannot end or alter it).
func Snapshot(ctx context.Context, db *scratch.Database, opts introspect.Options) (*introspect.Snapshot, error) {
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return SnapshotOn(ctx, db, conn, opts)
}

// SnapshotOn is [Snapshot] taken on conn, a superuser session of db's the caller keeps.
func SnapshotOn(ctx context.Context, db *scratch.Database, conn *pgx.Conn, opts introspect.Options) (*introspect.Snapshot, error) {
	snap, err := introspect.Take(ctx, conn, SnapshotOptions(opts, db))
	return snap, db.Blame(ctx, "taking a snapshot", err)
}

// Footprint runs sc in db as the install role between two snapshots and returns the difference
// together with the snapshot after. before, when not nil, is the snapshot of db before sc (every
// database is a copy of its dimension's template, so the gate takes it once per template);
// otherwise it is taken here. A script that fails returns the [*scratch.ScriptError]
// unwrapped.
func Footprint(ctx context.Context, db *scratch.Database, sc *scratch.Script, before *introspect.Snapshot, opts introspect.Options) (*introspect.Footprint, *introspect.Snapshot, error) {
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return FootprintOn(ctx, db, conn, sc, before, opts)
}

// FootprintOn is [Footprint] taking its snapshots on conn, a superuser session of db's the
// caller keeps (the gate audits the install on it next, without connecting again).
func FootprintOn(ctx context.Context, db *scratch.Database, conn *pgx.Conn, sc *scratch.Script, before *introspect.Snapshot, opts introspect.Options) (*introspect.Footprint, *introspect.Snapshot, error) {
	return FootprintThen(ctx, db, conn, sc, before, opts, nil)
}

// FootprintThen is [FootprintOn] with then, when not nil, run after sc and before the snapshot
// after it: what the install does once the file has run (the gate runs the commands of the
// pg_cron jobs the file schedules), whose effects are then the footprint's too. An error of then
// is returned as it is.
func FootprintThen(ctx context.Context, db *scratch.Database, conn *pgx.Conn, sc *scratch.Script, before *introspect.Snapshot, opts introspect.Options, then func(context.Context) error) (*introspect.Footprint, *introspect.Snapshot, error) {
	var err error
	opts = SnapshotOptions(opts, db)
	if before == nil {
		if before, err = introspect.Take(ctx, conn, opts); err != nil {
			return nil, nil, db.Blame(ctx, "taking the snapshot before "+sc.Name, fmt.Errorf("snapshot before %s: %w", sc.Name, err))
		}
	}
	// A connection of its own, as psql would use: session state the script leaves behind (SET
	// ROLE, an open transaction) does not reach the snapshots.
	if err := db.Exec(ctx, sc); err != nil {
		return nil, nil, err
	}
	if then != nil {
		if err := then(ctx); err != nil {
			return nil, nil, err
		}
	}
	after, err := introspect.Take(ctx, conn, opts)
	if err != nil {
		// A catalog larger than ledgercheck reads is the file's finding (resource-limit).
		return nil, nil, db.ReadLimit(sc, db.Blame(ctx, "taking the snapshot after "+sc.Name, fmt.Errorf("snapshot after %s: %w", sc.Name, err)))
	}
	return introspect.Diff(before, after), after, nil
}

// RuleInstallFailed is the rule of a variant the server rejects (registered in internal/gate).
const RuleInstallFailed = "install-failed"

// RuleResourceLimit is the rule of a statement that a resource limit of the run stopped
// (registered in internal/gate).
const RuleResourceLimit = "resource-limit"

// Finding turns a rejected statement, a syntax error, or what the migration did to its own
// environment (its role, its databases, the install time limit: [scratch.SelfInflicted]) into an
// install-failed finding at the statement, and a statement a resource limit of the run stopped
// into a resource-limit finding; it reports false for any other error.
func Finding(err error) (finding.Finding, bool) { return FindingOf(err, "the migration") }

// FindingOf is [Finding] of the script that what names ("the migration", "a prerequisite
// (deps/tags.sql)"), which its message starts with.
func FindingOf(err error, what string) (finding.Finding, bool) {
	var se *scratch.ScriptError
	if errors.As(err, &se) && se.Limit != "" && se.PgError() != nil {
		pe := se.PgError()
		detail := ""
		if pe.Detail != "" {
			detail = "DETAIL: " + pe.Detail
		}
		return finding.Finding{Phase: finding.PhaseInstall, Rule: RuleResourceLimit, Severity: finding.SevError, Pos: se.Pos,
			Message: what + " hit a resource limit of the run: " + pe.Message, Detail: detail}, true
	}
	if errors.As(err, &se) && se.SelfInflicted() != nil {
		si := se.SelfInflicted()
		msg := what + " does not install: " + si.Msg
		if !si.Timeout {
			msg = what + " breaks the environment it runs in: " + si.Msg
		}
		return finding.Finding{Phase: finding.PhaseInstall, Rule: RuleInstallFailed, Severity: finding.SevError, Pos: se.Pos, Message: msg}, true
	}
	if errors.As(err, &se) && se.PgError() != nil {
		pe := se.PgError()
		detail := ""
		if pe.Detail != "" {
			detail = "DETAIL: " + pe.Detail
		}
		if pe.Hint != "" {
			if detail != "" {
				detail += "\n"
			}
			detail += "HINT: " + pe.Hint
		}
		return finding.Finding{Phase: finding.PhaseInstall, Rule: RuleInstallFailed, Severity: finding.SevError, Pos: se.Pos,
			Message: fmt.Sprintf("%s does not install: %s (SQLSTATE %s)", what, pe.Message, pe.Code), Detail: detail}, true
	}
	var syn *pgsql.SyntaxError
	if errors.As(err, &syn) {
		return finding.Finding{Phase: finding.PhaseInstall, Rule: RuleInstallFailed, Severity: finding.SevError, Pos: syn.Pos,
			Message: what + " does not install: " + syn.Msg}, true
	}
	return finding.Finding{}, false
}

// bodies remembers the normal form of every function body normalized in the process: a run
// snapshots the same databases' functions (the environment's, the prerequisites', the
// migration's) again and again (the template, each install, each rerun), and parsing PL/pgSQL is
// most of a snapshot's CPU time. At most maxBodies are kept.
var bodies = struct {
	sync.Mutex
	m map[pgsql.FunctionBody]normalized
}{m: map[pgsql.FunctionBody]normalized{}}

const maxBodies = 20000

type normalized struct {
	norm, method string
	err          error
}

// normalizeBody is pgsql.NormalizeBody, remembered (it depends on its arguments alone).
func normalizeBody(language, arguments, result, body string) (string, string, error) {
	k := pgsql.FunctionBody{Language: language, Arguments: arguments, Result: result, Body: body}
	bodies.Lock()
	n, ok := bodies.m[k]
	bodies.Unlock()
	if ok {
		return n.norm, n.method, n.err
	}
	n.norm, n.method, n.err = pgsql.NormalizeBody(language, arguments, result, body)
	bodies.Lock()
	if len(bodies.m) >= maxBodies {
		clear(bodies.m)
	}
	bodies.m[k] = n
	bodies.Unlock()
	return n.norm, n.method, n.err
}
