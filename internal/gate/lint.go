package gate

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/audit"
	"github.com/ledgercheck/ledgercheck/internal/crosscheck"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// LintRequest is the lint command's subset of the pipeline: each file parsed once and linted,
// and, with Install, installed over the prerequisites and cross-checked (one phase per file).
type LintRequest struct {
	// Files are the migrations, read one at a time with Read (a 4 MiB migration's model is
	// large, so two are never held at once).
	Files []string
	Read  func(path string) ([]byte, error)
	// Lint is the lint configuration; Dim, when positive, the dimension every vector(N) must
	// have (and the install's; scratch.DefaultDim when zero).
	Lint lint.Config
	Dim  int
	// Postgres is the PostgreSQL major version the files are checked for (lint.Options.Postgres).
	Postgres int
	// Install installs each file into a scratch database of the server Start starts, and
	// cross-checks its footprint. Start is given the template the installs copy, for the cache.
	Install bool
	Start   func(ctx context.Context, templates []scratch.TemplateSpec) (*scratch.Server, error)
	// Server, when not nil, is a running server used instead of Start, and left running.
	Server *scratch.Server
	// NoOpenBrain and Prerequisites are what each file is installed over, as in [Request]: the
	// Open Brain prerequisites unless NoOpenBrain, then these files (the configuration's
	// prerequisites). What the files create exists for lint's ownership rules, installed or not.
	NoOpenBrain   bool
	Prerequisites []Script
	// Setup, when not nil, runs in each file's database before the file is installed (and
	// before the snapshot its footprint starts from): what the file needs beyond the
	// prerequisites.
	Setup func(ctx context.Context, db *scratch.Database) error
	// Logf receives progress lines; nil discards them.
	Logf func(format string, args ...any)
	// Tool, Version and Root are copied into the report.
	Tool, Version, Root string
}

// Lint runs a lint request and returns its report: the phase "lint FILE" for each file, with the
// cross-check's findings (and an install that fails) when the request installs.
func Lint(ctx context.Context, req LintRequest) (*report.Report, error) {
	t0 := time.Now()
	rep := &report.Report{Tool: req.Tool, Version: req.Version, Root: req.Root}
	req.Lint = withPrerequisites(req.Lint, req.Prerequisites)
	srv := req.Server
	base := baseFor(req.NoOpenBrain, req.Prerequisites) // what each file is installed over
	if req.Install && srv == nil {
		var err error
		spec := scratch.TemplateSpec{Dim: req.installDim(), Base: base}
		if srv, err = req.Start(ctx, append([]scratch.TemplateSpec{spec}, modelTemplates(req.Lint, spec)...)); err != nil {
			return nil, err
		}
		defer srv.Close()
		rep.Servers = []report.Server{serverOf(srv, req.Files)}
	}
	for _, path := range req.Files {
		src, err := req.Read(path)
		if err != nil {
			return nil, err
		}
		if req.Logf != nil {
			req.Logf("linting %s", path)
		}
		s0 := time.Now()
		f, perr := pgsql.Parse(path, src)
		ph := report.PhaseResult{Phase: finding.PhaseLint, Name: "lint " + path, File: path,
			Findings: lint.Parsed(path, f, perr, req.Lint, lint.Options{Dim: req.Dim, Postgres: req.Postgres})}
		if req.Install && perr == nil {
			static, fs, err := installCrossCheck(ctx, srv, f, src, req, base, ph.Findings)
			if err != nil {
				return nil, err
			}
			ph.Findings = append(static, fs...)
		}
		ph.Duration = time.Since(s0)
		rep.Phases = append(rep.Phases, ph)
	}
	rep.Duration = time.Since(t0)
	rep.Finish()
	return rep, nil
}

// installDim is the dimension the files are installed at: Dim, else scratch.DefaultDim.
func (req LintRequest) installDim() int { return cmp.Or(req.Dim, scratch.DefaultDim) }

// installCrossCheck installs f (the parse of src) over base (the prerequisites), cross-checks its
// footprint and audits it. static are lint's findings on f, returned without those on objects
// the install shows the file created (crosscheck.Owned); the audit does not repeat them. A file
// that does not install is an install-failed finding.
func installCrossCheck(ctx context.Context, srv *scratch.Server, f *pgsql.File, src []byte, req LintRequest, base scratch.Base, static []finding.Finding) ([]finding.Finding, []finding.Finding, error) {
	dim := req.installDim()
	sf, err := sqlscript.Reuse(f, src, dim)
	if err == nil {
		db, derr := srv.NewDatabaseFrom(ctx, dim, base)
		if derr != nil {
			var pf *scriptFailure
			if fd, ok := install.Finding(derr); ok && errors.As(derr, &pf) {
				fd.Message = "a prerequisite (" + pf.File + ") does not install: " + strings.TrimPrefix(fd.Message, "the migration does not install: ")
				return static, []finding.Finding{fd}, nil
			}
			return nil, nil, derr
		}
		defer db.Drop(context.WithoutCancel(ctx)) //nolint:errcheck // the server drops leftovers on Close
		if req.Setup != nil {
			if err := req.Setup(ctx, db); err != nil {
				return nil, nil, err
			}
		}
		conn, cerr := db.ConnectAdmin(ctx)
		if cerr != nil {
			return nil, nil, cerr
		}
		defer conn.Close(context.WithoutCancel(ctx))
		sc := sqlscript.Script(sf)
		var fp *introspect.Footprint
		if fp, _, err = install.FootprintOn(ctx, db, conn, sc, nil, introspect.Options{}); err == nil {
			// Under the other privilege models after this install, never beside it: the same
			// statements on one cluster's roles at once can fail each other.
			models := startModels(ctx, srv, req.Lint, dim, base, req.Setup, sc)
			defer closeModels(ctx, models)
			static = crosscheck.Owned(static, fp)
			audited, err := auditModels(ctx, req.Lint, db, conn, models, audit.Input{File: f, Footprint: fp, Lint: req.Lint, Static: static})
			if err != nil {
				return nil, nil, err
			}
			return static, append(crosscheck.Check(f, req.Lint, fp), audited...), nil
		}
	}
	if fd, ok := install.Finding(err); ok {
		return static, []finding.Finding{fd}, nil
	}
	return nil, nil, err
}
