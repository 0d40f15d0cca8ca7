package gate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/audit"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/observe"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// The access observation (internal/observe) is part of the audit step: after each install, the
// fixture (or generated rows) loaded, the personas act on what the file made reachable. The
// pipeline's own install (new defaults) is observed once nothing else uses its database: after
// the rerun audit (a file the rerun shows is not idempotent is observed on a fresh install
// instead), or right after the install when there is no rerun; the installs under the other
// privilege models load the fixture and are observed in their own goroutines, beside the rest.
// An object the file changed is compared with its template's observation (made once per
// template and model, and only when a finding concerns such an object).

// observeModels starts, for each model install, once it is installed, the audit's question (in)
// and its observation (the fixture loaded when it has requests to make), on one superuser
// session of the install's database; each closes its observed channel when done (at once when
// the install failed).
func (p *pipeline) observeModels(ctx context.Context, r *variantRun, models []*modelInstall, in audit.Input) {
	for _, mi := range models {
		go func() {
			defer fault.Recover(&mi.oerr)
			p.auditModel(ctx, r, mi, in)
		}()
	}
}

// auditModel waits for mi's install, asks the audit's question of it and observes it, on one
// superuser session of its database, and closes mi.observed.
func (p *pipeline) auditModel(ctx context.Context, r *variantRun, mi *modelInstall, in audit.Input) {
	defer close(mi.observed)
	defer fault.Recover(&mi.oerr)
	<-mi.done
	if mi.err != nil || mi.fail != nil {
		return
	}
	conn, err := mi.db.ConnectAdmin(ctx)
	if err != nil {
		mi.oerr = mi.db.Blame(ctx, "connecting to audit the install under "+mi.model, err)
		return
	}
	defer conn.Close(context.WithoutCancel(ctx))
	mi.answers, mi.aerr = audit.Ask(ctx, conn, in)
	mi.aerr, mi.asked = mi.db.Blame(ctx, "auditing the install under "+mi.model, mi.aerr), true
	if !p.observes(mi.model) {
		return
	}
	mi.obs, mi.oerr = p.observeOn(ctx, r, mi.db, conn, mi.model, p.fixtureOf(mi.db))
	mi.oerr = mi.db.Blame(ctx, "observing the install under "+mi.model, mi.oerr)
}

// observes reports whether the run observes installs under model.
func (p *pipeline) observes(model string) bool {
	return p.steps.Audit && slices.Contains(p.lint.Models(), model)
}

// fixtureOf loads the request's fixture into db, for an observation that has requests to make
// (nil without a fixture). A fixture that does not load is the pipeline's install's finding:
// the observation then goes on over generated rows.
func (p *pipeline) fixtureOf(db *scratch.Database) func(context.Context) error {
	fx := p.fixture
	if fx == nil {
		return nil
	}
	return func(ctx context.Context) error {
		if err := sqlscript.ExecFile(ctx, db, fx.Name, fx.Src); err != nil {
			if _, ok := install.Finding(err); !ok {
				return db.Blame(ctx, "loading the fixture to observe", err)
			}
		}
		return nil
	}
}

// observeOn observes the variant's install in db under model (conn, when not nil, a superuser
// session of db's; rows, when not nil, loads the fixture first).
func (p *pipeline) observeOn(ctx context.Context, r *variantRun, db *scratch.Database, conn *pgx.Conn, model string, rows func(context.Context) error) (*observe.Observation, error) {
	t0 := time.Now()
	in := observe.Input{Model: model, Scope: observe.ScopeOf(r.installed.Footprint, p.lint.Exposed()), Snapshot: r.fresh, Dim: r.v.Dim, Admin: conn, Rows: rows}
	ob, err := observe.Run(ctx, db, in)
	if err == nil {
		p.logf("observe: %s under %s: %d requests in %s", r.v.Name, model, len(ob.Cells), report.FormatDuration(time.Since(t0)))
	}
	return ob, err
}

// observeOwn observes the pipeline's own install (new defaults) of the variant, in db, once the
// rerun audit is done with it; a file whose rerun changed something is observed on a fresh
// install of its own.
func (p *pipeline) observeOwn(ctx context.Context, r *variantRun, db *scratch.Database, conn *pgx.Conn) (*observe.Observation, error) {
	if r.file == nil || !p.observes(lint.NewDefaults) {
		return nil, nil
	}
	if r.rerun == nil || len(r.rerun.Findings) == 0 {
		ob, err := p.observeOn(ctx, r, db, conn, lint.NewDefaults, nil)
		return ob, db.Blame(ctx, "observing the install", err)
	}
	fresh, err := p.newDatabase(ctx, r.v)
	if err != nil {
		return nil, err
	}
	defer dropDatabase(ctx, fresh)
	sc, err := r.script()
	if err != nil {
		return nil, err
	}
	if err := fresh.Exec(ctx, sc); err != nil {
		if _, ok := install.Finding(err); ok {
			return nil, nil // the file's own doing, which the pipeline's install and rerun report
		}
		return nil, fresh.Blame(ctx, "installing again to observe", err)
	}
	ob, err := p.observeOn(ctx, r, fresh, nil, lint.NewDefaults, p.fixtureOf(fresh))
	return ob, fresh.Blame(ctx, "observing the install", err)
}

// baseOnce is a template's observation, made once.
type baseOnce struct {
	once sync.Once
	ob   *observe.Observation
	err  error
}

// baseObservation is the observation of the template a variant at dim is installed over, under
// model: everything of the exposed schemas, with users and generated rows, made once per
// template and model (per variant when the request's setup changes each database).
func (p *pipeline) baseObservation(ctx context.Context, r *variantRun, model string) (*observe.Observation, error) {
	key := fmt.Sprintf("%d/%s", r.v.Dim, model)
	p.mu.Lock()
	if p.bases == nil {
		p.bases = map[string]*baseOnce{}
	}
	b := p.bases[key]
	if b == nil || p.setup != nil {
		b = &baseOnce{}
		p.bases[key] = b
	}
	p.mu.Unlock()
	b.once.Do(func() {
		base := p.base
		base.Privileges = scratchModel[model]
		db, err := p.srv.NewDatabaseFrom(ctx, r.v.Dim, base)
		if err != nil {
			b.err = err
			return
		}
		defer dropDatabase(ctx, db)
		if p.setup != nil {
			if b.err = p.setup(ctx, db); b.err != nil {
				return
			}
		}
		var snap *introspect.Snapshot
		if conn, err := db.ConnectAdmin(ctx); err == nil {
			snap, b.err = install.SnapshotOn(ctx, db, conn, introspect.Options{})
			conn.Close(context.WithoutCancel(ctx))
			if b.err != nil {
				return
			}
		}
		b.ob, b.err = observe.Run(ctx, db, observe.Input{Model: model, Scope: observe.BaseScope(p.lint.Exposed()), Snapshot: snap, Dim: r.v.Dim})
		b.err = db.Blame(ctx, "observing the template", b.err)
	})
	return b.ob, b.err
}

// observedFindings turns the variant's observations into findings and folds them into the
// catalog's (catalog) and lint's (static): the audit phase's findings, lint's findings the
// observation confirms, and notes.
func (p *pipeline) observedFindings(ctx context.Context, r *variantRun, obs []*observe.Observation, catalog, static []finding.Finding) (observe.Folded, error) {
	before := map[string]*observe.Observation{}
	if observe.NeedsBase(obs) {
		for _, ob := range obs {
			b, err := p.baseObservation(ctx, r, ob.Model)
			if err != nil {
				return observe.Folded{}, fmt.Errorf("observing the template of %s: %w", r.v.File, err)
			}
			before[ob.Model] = b
		}
	}
	in := observe.FindingsInput{File: r.file, Statements: r.stmts, Before: before,
		Suppressed: func(rule string, pos finding.Position) bool { return lint.Suppressed(r.file, rule, pos) }}
	return observe.Fold(catalog, static, observe.Findings(in, obs), obs), nil
}

// observationNotes say what the observation did: how many requests it made, how many it did
// not have to make, and its observations' own notes (each once).
func observationNotes(obs []*observe.Observation) []string {
	n, denied := 0, 0
	var notes []string
	for _, ob := range obs {
		n += len(ob.Cells)
		denied += ob.Denied
		for _, note := range ob.Notes {
			if !slices.Contains(notes, note) {
				notes = append(notes, note)
			}
		}
	}
	refused := fmt.Sprintf("%s refused by row level security whatever they are (no policy lets the role), not made", observe.NounRequests(denied))
	var first string
	switch {
	case n == 0 && denied == 0:
		first = "observed: nothing the file created or changed is reachable by anon or a signed-in user through the Data API"
	case n == 0:
		first = "observed: no request to make: " + refused
	default:
		first = fmt.Sprintf("observed: %s as anon and signed-in users A and B, as the Data API makes them (see the access matrix)", observe.NounRequests(n))
		if denied > 0 {
			first += "; " + refused
		}
	}
	return append(append([]string{first}, graphqlNotes(obs)...), notes...)
}

// graphqlNotes say, per privilege model, what pg_graphql would publish where it is enabled
// (splinter 0026 and 0027, modelled from the privileges: pg_graphql is not installable here).
func graphqlNotes(obs []*observe.Observation) []string {
	var out []string
	for _, ob := range obs {
		g := ob.GraphQL()
		var parts []string
		for _, role := range []string{"anon", "authenticated"} {
			if objs := g[role]; len(objs) > 0 {
				lint := map[string]string{"anon": "0026", "authenticated": "0027"}[role]
				parts = append(parts, fmt.Sprintf("%s %s (splinter %s)", role, shortList(objs), lint))
			}
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("%s: where pg_graphql is enabled, its schema, which anyone may introspect, shows the names and columns of what %s may select: %s",
				ob.Model, "anon and authenticated", strings.Join(parts, "; ")))
		}
	}
	return out
}

// shortList is the first three of xs and how many more.
func shortList(xs []string) string {
	if len(xs) <= 3 {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:3], ", "), len(xs)-3)
}
