package gate

import (
	"cmp"
	"context"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// LintRequest is the lint command's subset of the pipeline: each file parsed once and linted,
// and, with Install, taken through check's install, audit and cross-check steps over the
// prerequisites (one phase per file).
type LintRequest struct {
	// Request is built as check's is, and gives what every request shares: the lint
	// configuration (Lint), the PostgreSQL version (Postgres, lint.Options.Postgres), the server
	// (Start, given the templates the installs copy, or a running Server, left running), what
	// each file is installed over (the Open Brain prerequisites unless NoOpenBrain, then
	// Prerequisites, whose objects exist for lint's ownership rules, installed or not),
	// progress (Logf, with Command, default "lint") and the report's Tool, Version and Root.
	// Its variants, steps, fixture, probes and Times are not lint's: Files and Install are.
	Request
	// Files are the migrations, read one at a time with Read (a 4 MiB migration's model is
	// large, so two are never held at once).
	Files []string
	Read  func(path string) ([]byte, error)
	// Dim, when positive, is the dimension every vector(N) must have (and the install's;
	// scratch.DefaultDim when zero).
	Dim int
	// Install installs each file into a scratch database of the server, and cross-checks and
	// audits its footprint.
	Install bool
	// Setup, when not nil, runs in each file's database before the file is installed (and
	// before the snapshot its footprint starts from): what the file needs beyond the
	// prerequisites.
	Setup func(ctx context.Context, db *scratch.Database) error
}

// lintSteps are the steps of lint --install: check's install, audit and cross-check.
var lintSteps = Steps{Lint: true, CrossCheck: true, Audit: true, Bodies: true}

// Lint runs a lint request and returns its report: the phase "lint FILE" for each file, with the
// cross-check's and the audit's findings (or the install's failure) when the request installs.
func Lint(ctx context.Context, req LintRequest) (*report.Report, error) {
	t0 := time.Now()
	rep := &report.Report{Tool: req.Tool, Version: req.Version, Root: req.Root}
	req.Lint = withPrerequisites(req.Lint, req.Prerequisites)
	logf, _ := progress(req.Logf, cmp.Or(req.Command, "lint"))
	quiet := func(string, ...any) {}                    // lint's progress is one line per file
	base := baseFor(req.NoOpenBrain, req.Prerequisites) // what each file is installed over
	dim := cmp.Or(req.Dim, scratch.DefaultDim)          // the dimension each file is installed at
	boot := startServer(ctx, req.Start, req.Server, templatesOf(req.Lint, true, scratch.TemplateSpec{Dim: dim, Base: base}), req.Install, quiet)
	defer boot.close()
	srv, err := boot.wait()
	if err != nil {
		return nil, err
	}
	if boot.own {
		rep.Servers = []report.Server{serverOf(srv, req.Files)}
	}
	p := &pipeline{steps: lintSteps, lint: req.Lint, setup: req.Setup, srv: srv, logf: logf, say: quiet, base: base, before: map[int]*snapshotOnce{}}
	for _, path := range req.Files {
		src, err := req.Read(path)
		if err != nil {
			return nil, err
		}
		logf("linting %s", path)
		s0 := time.Now()
		r := &variantRun{v: Variant{Name: path, File: path, Src: src, Dim: dim}}
		r.parseAndLint(req.Lint, true, req.Dim, req.Postgres, quiet)
		if req.Install && r.parseEr == nil {
			if err := p.variant(ctx, r); err != nil {
				return nil, err
			}
		}
		rep.Phases = append(rep.Phases, lintPhase(r, time.Since(s0)))
	}
	rep.Duration = time.Since(t0)
	rep.Finish()
	return rep, nil
}

// lintPhase is lint's phase of one file, "lint FILE": lint's findings (less those on objects
// the install shows the file created), then the install's failure, or the cross-check's and the
// audit's findings.
func lintPhase(r *variantRun, took time.Duration) report.PhaseResult {
	ph := report.PhaseResult{Phase: finding.PhaseLint, Name: "lint " + r.v.File, File: r.v.File, Duration: took, Findings: r.lint.Findings}
	switch {
	case r.installErr != nil:
		ph.Findings = append(ph.Findings, r.installFinding())
	case r.audit != nil:
		static := markModels(r.audit.static, r.audit.confirmed, r.audit.observed)
		ph.Findings = append(append(static, r.crossCheck...), r.audit.phase.Findings...)
		ph.Access = r.audit.phase.Access
	}
	if r.bodies != nil {
		// The check's findings, and what it could not check (its first note is its summary).
		ph.Findings = append(ph.Findings, r.bodies.Findings...)
		if len(r.bodies.Notes) > 1 {
			ph.Notes = append(ph.Notes, r.bodies.Notes[1:]...)
		}
	}
	return ph
}
