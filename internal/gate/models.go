package gate

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/audit"
	"github.com/ledgercheck/ledgercheck/internal/crosscheck"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/observe"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// The installed audit answers for every privilege model the policy names (lint.Config.Models):
// a sidecar is installed into hosted projects, whose new tables get no privileges for the API
// roles, and into self-hosted ones, whose old default privileges grant them ALL. The pipeline's
// databases are a hosted project's; each other model gets one more database per variant, a copy
// of the same template built under that model's default privileges, in which the file is
// installed again (beside the variant's own install) and audited. Nothing else runs there.

// modelInstall is a variant's file installed under a privilege model other than the pipeline's.
type modelInstall struct {
	model string // lint's name of it
	done  chan struct{}
	db    *scratch.Database
	fail  error // the file does not install under this model: a finding
	err   error // anything else: the run's error
	// observed is closed once the access observation of this install has ended (after done);
	// obs is its observation (nil when it did not run), oerr its error.
	observed chan struct{}
	obs      *observe.Observation
	oerr     error
	// answers are the audit's answers to its query on this install, asked on the session the
	// observation uses (asked says they were), aerr the error of asking.
	answers audit.Answers
	asked   bool
	aerr    error
}

// scratchModel maps lint's model names to the templates' privilege models.
var scratchModel = map[string]scratch.PrivilegeModel{lint.NewDefaults: scratch.NewProjectPrivileges, lint.OldDefaults: scratch.OldDefaultPrivileges}

// otherModels returns the models cfg names besides the pipeline's own (new defaults).
func otherModels(cfg lint.Config) []string {
	var out []string
	for _, m := range cfg.Models() {
		if m != lint.NewDefaults {
			out = append(out, m)
		}
	}
	return out
}

// templatesOf returns the templates a variant at spec's dimension needs: spec's, and, when the
// run audits, those of the other privilege models of cfg.
func templatesOf(cfg lint.Config, audits bool, spec scratch.TemplateSpec) []scratch.TemplateSpec {
	out := []scratch.TemplateSpec{spec}
	if !audits {
		return out
	}
	for _, m := range otherModels(cfg) {
		s := spec
		s.Base.Privileges = scratchModel[m]
		out = append(out, s)
	}
	return out
}

// startModels starts the install of sc at dim over base under each other model of cfg, each in
// a goroutine of its own; setup, when not nil, runs in each database first (what the file needs
// beyond base). The caller audits each ([modelInstall.audit]) or closes it.
func startModels(ctx context.Context, srv *scratch.Server, cfg lint.Config, dim int, base scratch.Base, setup func(context.Context, *scratch.Database) error, sc *scratch.Script, jobs []sqlscript.Job) []*modelInstall {
	var out []*modelInstall
	for _, m := range otherModels(cfg) {
		out = append(out, startModel(ctx, srv, m, dim, base, setup, sc, jobs))
	}
	return out
}

// startModel starts the install of sc at dim over base under the model m, in a goroutine of
// its own (see startModels).
func startModel(ctx context.Context, srv *scratch.Server, m string, dim int, base scratch.Base, setup func(context.Context, *scratch.Database) error, sc *scratch.Script, jobs []sqlscript.Job) *modelInstall {
	mi := &modelInstall{model: m, done: make(chan struct{}), observed: make(chan struct{})}
	b := base
	b.Privileges = scratchModel[m]
	go func() {
		defer close(mi.done)
		defer fault.Recover(&mi.err)
		db, err := srv.NewDatabaseFrom(ctx, dim, b)
		if err != nil {
			mi.err = err
			return
		}
		mi.db = db
		if setup != nil {
			if mi.err = setup(ctx, db); mi.err != nil {
				return
			}
		}
		if err := db.Exec(ctx, sc); err != nil {
			if _, ok := install.Finding(err); ok {
				mi.fail = err
				return
			}
			mi.err = db.Blame(ctx, "installing under "+m, err)
			return
		}
		// The jobs the file schedules, as after the variant's own install (their failures
		// are that install's findings).
		if _, err := sqlscript.RunJobs(ctx, db, jobs); err != nil {
			mi.err = db.Blame(ctx, "running the pg_cron jobs under "+m, err)
		}
	}()
	return mi
}

// ask waits for the install and asks the audit's query on a superuser session of its database;
// a file that does not install under the model is an install-failed finding instead.
func (mi *modelInstall) ask(ctx context.Context, in audit.Input) (audit.Answers, *finding.Finding, error) {
	<-mi.done
	if mi.err != nil {
		return audit.Answers{}, nil, mi.err
	}
	if mi.fail != nil {
		f, _ := install.Finding(mi.fail)
		f.Message += " (under " + mi.model + ", the default privileges of a self-hosted project)"
		return audit.Answers{}, &f, nil
	}
	<-mi.observed
	if mi.asked {
		return mi.answers, nil, mi.aerr
	}
	conn, err := mi.db.ConnectAdmin(ctx)
	if err != nil {
		return audit.Answers{}, nil, mi.db.Blame(ctx, "connecting to audit the install under "+mi.model, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	a, err := audit.Ask(ctx, conn, in)
	return a, nil, mi.db.Blame(ctx, "auditing the install under "+mi.model, err)
}

// close waits for the install and its observation, and drops its database.
func (mi *modelInstall) close(ctx context.Context) {
	<-mi.done
	<-mi.observed
	if mi.db != nil {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = mi.db.Drop(dctx) // the server drops leftovers on Close
	}
}

// waitModels waits until every model install has ended.
func waitModels(ms []*modelInstall) {
	for _, mi := range ms {
		<-mi.done
	}
}

// closeModels closes every model install.
func closeModels(ctx context.Context, ms []*modelInstall) {
	for _, mi := range ms {
		mi.close(ctx)
	}
}

// answers are the audit's answers under each model asked so far.
type answers struct {
	names []string
	got   []audit.Answers
}

// askOwn asks the audit of in on the pipeline's own install (conn, a superuser session of db)
// when cfg names its model (new defaults).
func askOwn(ctx context.Context, cfg lint.Config, db *scratch.Database, conn *pgx.Conn, in audit.Input) (answers, error) {
	var a answers
	if !slices.Contains(cfg.Models(), lint.NewDefaults) {
		return a, nil
	}
	got, err := audit.Ask(ctx, conn, in)
	if err := db.Blame(ctx, "auditing the install", err); err != nil {
		return a, err
	}
	return answers{names: []string{lint.NewDefaults}, got: []audit.Answers{got}}, nil
}

// finish asks the audit of in under each of the other models and turns every answer into
// findings together (audit.Findings); an install that fails under another model is its
// install-failed finding.
func (a answers) finish(ctx context.Context, others []*modelInstall, in audit.Input) ([]finding.Finding, []audit.Confirmation, error) {
	var failed []finding.Finding
	for _, mi := range others {
		got, fail, err := mi.ask(ctx, in)
		switch {
		case err != nil:
			return nil, nil, err
		case fail != nil:
			failed = append(failed, *fail)
		default:
			a.names, a.got = append(a.names, mi.model), append(a.got, got)
		}
	}
	return append(audit.Findings(in, a.names, a.got), failed...), audit.Confirmed(in, a.names, a.got), nil
}

// auditRun is the audit step under way on a variant's install: its own install's answers, and
// the installs under the other privilege models, running beside the rest of the sequence, and
// the observation of its own install (observe.go).
type auditRun struct {
	in     audit.Input
	own    answers
	models []*modelInstall
	took   time.Duration
	ownObs *observe.Observation
}

// startAudit starts the audit step on the variant's install (before the fixture): the file
// installed again under each other privilege model, and the audit's question asked of db's
// catalog on conn, with lint's findings as the facts already reported, less those on objects
// the install shows the file created (SQL built at run time). Nil when the request does not
// audit.
func (p *pipeline) startAudit(ctx context.Context, r *variantRun, db *scratch.Database, conn *pgx.Conn, sc *scratch.Script) (*auditRun, error) {
	if !p.steps.Audit || r.file == nil {
		return nil, nil
	}
	t0 := time.Now()
	fp := r.installed.Footprint
	in := audit.Input{File: r.file, Footprint: fp, Lint: p.lint, Static: crosscheck.Owned(r.lint.Findings, fp), Statements: r.stmts}
	if r.roles != nil {
		// A file with roles of its own: its installs under the other models take place now,
		// inside the variant's turn with the server's roles, while the variant's roles step
		// aside, and are audited at once.
		own, err := askOwn(ctx, p.lint, db, conn, in)
		if err != nil {
			return nil, err
		}
		models, err := p.modelsInTurn(ctx, r, sc, in)
		return &auditRun{in: in, own: own, models: models, took: time.Since(t0)}, err
	}
	// Under the other privilege models after this install, never beside it: the same
	// statements on one cluster's roles at once can fail each other.
	models := startModels(ctx, p.srv, p.lint, r.v.Dim, p.base, p.setup, sc, r.jobs)
	p.observeModels(ctx, r, models, in)
	own, err := askOwn(ctx, p.lint, db, conn, in)
	if err != nil {
		closeModels(ctx, models)
		return nil, err
	}
	return &auditRun{in: in, own: own, models: models, took: time.Since(t0)}, nil
}

// modelsInTurn installs sc under each other model in turn, inside r's turn with the server's
// roles: r's own roles step aside, each install is audited and observed at once and its roles
// step aside for the next, and r's own roles come back.
func (p *pipeline) modelsInTurn(ctx context.Context, r *variantRun, sc *scratch.Script, in audit.Input) ([]*modelInstall, error) {
	mine, err := r.roles.StepAside(ctx)
	if err != nil {
		return nil, err
	}
	var models []*modelInstall
	for _, m := range otherModels(p.lint) {
		mi := startModel(ctx, p.srv, m, r.v.Dim, p.base, p.setup, sc, r.jobs)
		models = append(models, mi)
		p.auditModel(ctx, r, mi, in)
		if _, err := r.roles.StepAside(ctx); err != nil {
			return models, err
		}
	}
	return models, r.roles.StepBack(ctx, mine)
}

// waitInstalls waits until the installs under the other models have ended.
func (a *auditRun) waitInstalls() {
	if a != nil {
		waitModels(a.models)
	}
}

// close drops the other models' databases.
func (a *auditRun) close(ctx context.Context) {
	if a != nil {
		closeModels(ctx, a.models)
	}
}

// finishAudit ends the audit step: the other models' answers, merged with the variant's own
// into the phase "audit VARIANT", and the observations of every model's install folded in.
func (p *pipeline) finishAudit(ctx context.Context, r *variantRun, a *auditRun) error {
	if a == nil {
		return nil
	}
	t0 := time.Now()
	fs, confirmed, err := a.own.finish(ctx, a.models, a.in)
	if err != nil {
		return err
	}
	obs, err := a.observations()
	if err != nil {
		return err
	}
	folded, err := p.observedFindings(ctx, r, obs, fs, a.in.Static)
	if err != nil {
		return err
	}
	env := r.environment.findings(r)
	ph := report.PhaseResult{Phase: finding.PhaseAudit, Name: "audit " + r.v.Name, File: r.v.File, Findings: append(folded.Findings, env...), Duration: a.took + time.Since(t0),
		Notes: []string{"what anon and authenticated can do with what the file created or changed, asked of the installed catalog (splinter's security lints) and observed as the Data API's requests " + modelsNote(p.lint)}}
	ph.Notes = append(append(ph.Notes, observationNotes(obs)...), folded.Notes...)
	if len(env) > 0 {
		ph.Notes = append(ph.Notes, "what installing the file changed in the environment's tables (storage, auth, cron, vault, pg_net's queue), read just before and after it")
	}
	for _, ob := range obs {
		ph.Access = append(ph.Access, ob.Cells...)
	}
	if audit.Empty(a.in.Footprint) && len(env) == 0 {
		ph.Status = report.StatusSkip
		ph.Notes = []string{"not run: installing the file created or changed no table, view, function, extension or policy, so there is nothing for anon and authenticated to reach"}
		confirmed, folded.Confirmed = nil, nil
	}
	r.audit = &audited{static: a.in.Static, phase: ph, confirmed: confirmed, observed: folded.Confirmed}
	return nil
}

// observations waits for the other models' observations and returns them after the own
// install's, in the models' order (those that ran).
func (a *auditRun) observations() ([]*observe.Observation, error) {
	var out []*observe.Observation
	if a.ownObs != nil {
		out = append(out, a.ownObs)
	}
	for _, mi := range a.models {
		<-mi.observed
		if mi.oerr != nil {
			return nil, mi.oerr
		}
		if mi.obs != nil {
			out = append(out, mi.obs)
		}
	}
	return out, nil
}

// modelsNote says which kinds of project the audit answered for.
func modelsNote(cfg lint.Config) string {
	switch ms := cfg.Models(); {
	case len(ms) > 1:
		return "of a hosted and of a self-hosted project (the old default privileges)"
	case ms[0] == lint.OldDefaults:
		return "of a self-hosted project (the old default privileges; lint.privilege_models)"
	default:
		return "of a hosted project (lint.privilege_models)"
	}
}
