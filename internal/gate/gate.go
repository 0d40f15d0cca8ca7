package gate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"ledgercheck/internal/fault"
	"ledgercheck/internal/finding"
	"ledgercheck/internal/install"
	"ledgercheck/internal/lint"
	"ledgercheck/internal/report"
	"ledgercheck/internal/scratch"
)

// Variant is one install of the migration: the artifact or a port.
type Variant struct {
	// Name names the variant in phase names: "artifact", "port".
	Name string
	// File is the migration as the user named it (positions use it); Src is its content.
	File string
	Src  []byte
	// Dim is the variant's vector dimension.
	Dim int
	// Previous, when not empty, is the previous version of File for the upgrade audit, and
	// PreviousSrc its content.
	Previous    string
	PreviousSrc []byte
}

// Label is the variant's name and dimension, e.g. "artifact (1536)".
func (v Variant) Label() string { return fmt.Sprintf("%s (%d)", v.Name, v.Dim) }

// ParityFunc installs both variants on srv, compares them through the allowlist and runs the
// probes (ledgercheck/parity), and returns the phase results to report. The error is for
// infrastructure failures only; differences are findings.
type ParityFunc func(ctx context.Context, srv *scratch.Server) ([]report.PhaseResult, error)

// RerunFunc audits one variant for reruns (and the upgrade from its previous version) in
// databases of its own on srv, and returns the phase result. The error is for infrastructure
// failures only.
type RerunFunc func(ctx context.Context, srv *scratch.Server, v Variant) (report.PhaseResult, error)

// Options configure a gate run.
type Options struct {
	// Left and Right are the two variants: the artifact and the port.
	Left, Right Variant
	// Lint is the lint configuration applied to both variants.
	Lint lint.Config
	// Start starts the scratch server; it runs while the variants are linted. Run closes the
	// server before it returns.
	Start func(ctx context.Context) (*scratch.Server, error)
	// Parity compares the two installs; nil reports parity as skipped.
	Parity ParityFunc
	// Rerun audits each variant; nil reports the rerun audit as skipped.
	Rerun RerunFunc
	// Logf receives progress lines with step timings; nil discards them. It is called from
	// several goroutines, one call at a time.
	Logf func(format string, args ...any)
	// Tool, Version and Root are copied into the report.
	Tool, Version, Root string
}

// Run runs the gate and returns its report. The steps and what runs concurrently:
//
//  1. the scratch server starts while both variants are linted;
//  2. parity (both installs, fixture, probes, diff, allowlist) and the rerun audit of each
//     variant run side by side, each in databases of its own. Roles are cluster-wide, but
//     snapshots see them from their own database (ledgercheck/introspect), so the installs
//     cannot see each other.
//
// A variant that does not install is a finding (rule install-failed). The error is for what the
// user must fix outside the migrations: no Postgres, a server that fails, an interrupted run.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	t0 := time.Now()
	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		if opts.Logf == nil {
			return
		}
		logMu.Lock()
		defer logMu.Unlock()
		opts.Logf(format, args...)
	}
	rep := &report.Report{Tool: opts.Tool, Version: opts.Version, Root: opts.Root,
		LeftLabel: opts.Left.Label(), RightLabel: opts.Right.Label()}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// 1. Boot the server while linting.
	var (
		srv      *scratch.Server
		startErr error
		bootTime time.Duration
		started  = make(chan struct{})
	)
	go func() {
		defer close(started)
		defer fault.Recover(&startErr)
		s0 := time.Now()
		srv, startErr = opts.Start(ctx)
		bootTime = time.Since(s0)
		if startErr == nil {
			logf("check: server ready in %s", report.FormatDuration(bootTime))
		}
	}()
	defer func() {
		<-started
		if srv != nil {
			if err := srv.Close(); err != nil {
				logf("check: stopping the scratch server: %v", err)
			}
		}
	}()
	lints := make([]report.PhaseResult, 2)
	lintErrs := make([]error, 2)
	var wg sync.WaitGroup
	for i, v := range []Variant{opts.Left, opts.Right} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer fault.Recover(&lintErrs[i])
			s0 := time.Now()
			fs := lint.Source(v.File, v.Src, opts.Lint, lint.Options{Dim: v.Dim})
			lints[i] = report.PhaseResult{Phase: finding.PhaseLint, Name: "lint " + v.Name, File: v.File, Duration: time.Since(s0), Findings: fs}
			logf("check: lint %s: %d findings in %s", v.Name, len(fs), report.FormatDuration(lints[i].Duration))
		}()
	}
	wg.Wait()
	if err := errors.Join(lintErrs...); err != nil {
		return nil, fmt.Errorf("lint: %w", err)
	}
	rep.Phases = append(rep.Phases, lints...)
	<-started
	if startErr != nil {
		return nil, startErr
	}

	// 2. Parity and the rerun audits, side by side.
	var (
		mu       sync.Mutex
		firstErr error
		reruns   = make([]report.PhaseResult, 2)
		parity   []report.PhaseResult
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil || errors.Is(firstErr, context.Canceled) {
			firstErr = err
		}
		cancel()
	}
	// spawn runs f in a goroutine of its own; its error, or its panic as a *fault.PanicError,
	// cancels the others.
	spawn := func(what string, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			func() {
				defer fault.Recover(&err)
				err = f()
			}()
			if err != nil {
				fail(fmt.Errorf("%s: %w", what, err))
			}
		}()
	}
	if opts.Parity == nil {
		parity = []report.PhaseResult{skipped(finding.PhaseParity, "parity", opts.Right.File, "the parity step is not available in this build")}
	} else {
		spawn("parity", func() error {
			s0 := time.Now()
			phs, err := opts.Parity(ctx, srv)
			if err != nil {
				return err
			}
			parity = phs
			logf("check: parity: %d phases in %s", len(phs), report.FormatDuration(time.Since(s0)))
			return nil
		})
	}
	for i, v := range []Variant{opts.Left, opts.Right} {
		if opts.Rerun == nil {
			reruns[i] = skipped(finding.PhaseRerun, "rerun "+v.Name, v.File, "the rerun audit is not available in this build")
			continue
		}
		spawn("rerun audit of "+v.File, func() error {
			s0 := time.Now()
			ph, err := opts.Rerun(ctx, srv, v)
			if err != nil {
				return err
			}
			ph.Phase = finding.PhaseRerun
			if ph.Name == "" {
				ph.Name = "rerun " + v.Name
			}
			if ph.File == "" {
				ph.File = v.File
			}
			if ph.Duration == 0 {
				ph.Duration = time.Since(s0)
			}
			reruns[i] = ph
			logf("check: rerun %s: %d findings in %s", v.Name, len(ph.Findings), report.FormatDuration(ph.Duration))
			return nil
		})
	}
	wg.Wait()
	if firstErr != nil {
		if err := ctx.Err(); err != nil && errors.Is(firstErr, context.Canceled) {
			return nil, err
		}
		return nil, firstErr
	}
	rep.Phases = append(rep.Phases, parity...)
	rep.Phases = append(rep.Phases, reruns...)
	rep.Duration = time.Since(t0)
	rep.Finish()
	logf("check: %s in %s (server boot %s)", rep.Status(), report.FormatDuration(rep.Duration), report.FormatDuration(bootTime))
	return rep, nil
}

// InstallFinding turns a rejected statement or a syntax error into an install-failed finding;
// it reports false for any other error.
func InstallFinding(err error) (finding.Finding, bool) { return install.Finding(err) }

func skipped(ph finding.Phase, name, file, why string) report.PhaseResult {
	return report.PhaseResult{Phase: ph, Name: name, File: file, Status: report.StatusSkip, Notes: []string{why}}
}
