package gate

import (
	"context"
	"time"

	"ledgercheck/internal/crosscheck"
	"ledgercheck/internal/finding"
	"ledgercheck/internal/install"
	"ledgercheck/internal/lint"
	"ledgercheck/internal/pgsql"
	"ledgercheck/internal/report"
	"ledgercheck/internal/scratch"
	"ledgercheck/internal/sqlscript"
	"ledgercheck/introspect"
)

// LintRequest is the lint command's subset of the pipeline: each file parsed once and linted,
// and, with Install, installed over the prerequisites and cross-checked (one phase per file).
type LintRequest struct {
	// Files are the migrations, read one at a time with Read (a 4 MiB migration's model is
	// large, so two are never held at once).
	Files []string
	Read  func(path string) ([]byte, error)
	// Lint is the lint configuration; Dim, when positive, the dimension every vector(N) must
	// have (and the install's; 1536 when zero).
	Lint lint.Config
	Dim  int
	// Postgres is the PostgreSQL major version the files are checked for (lint.Options.Postgres).
	Postgres int
	// Install installs each file into a scratch database of the server Start starts, and
	// cross-checks its footprint.
	Install bool
	Start   func(ctx context.Context) (*scratch.Server, error)
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
	var srv *scratch.Server
	if req.Install {
		var err error
		if srv, err = req.Start(ctx); err != nil {
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
		if srv != nil && perr == nil {
			fs, err := installCrossCheck(ctx, srv, f, src, req)
			if err != nil {
				return nil, err
			}
			ph.Findings = append(ph.Findings, fs...)
		}
		ph.Duration = time.Since(s0)
		rep.Phases = append(rep.Phases, ph)
	}
	rep.Duration = time.Since(t0)
	rep.Finish()
	return rep, nil
}

// installCrossCheck installs f (the parse of src) over the prerequisites and cross-checks its
// footprint. A file that does not install is an install-failed finding.
func installCrossCheck(ctx context.Context, srv *scratch.Server, f *pgsql.File, src []byte, req LintRequest) ([]finding.Finding, error) {
	dim := req.Dim
	if dim == 0 {
		dim = 1536
	}
	sf, err := sqlscript.Reuse(f, src, dim)
	if err == nil {
		db, derr := srv.NewDatabase(ctx, dim)
		if derr != nil {
			return nil, derr
		}
		defer db.Drop(context.WithoutCancel(ctx)) //nolint:errcheck // the server drops leftovers on Close
		var fp *introspect.Footprint
		if fp, _, err = install.Footprint(ctx, db, sqlscript.Script(sf), nil, introspect.Options{}); err == nil {
			return crosscheck.Check(f, req.Lint, fp), nil
		}
	}
	if fd, ok := install.Finding(err); ok {
		return []finding.Finding{fd}, nil
	}
	return nil, err
}
