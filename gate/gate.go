package gate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"ledgercheck/internal/fault"
	"ledgercheck/introspect"
	"ledgercheck/lint"
	"ledgercheck/pgsql"
	"ledgercheck/report"
	"ledgercheck/scratch"
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

// Install is a variant installed into its own scratch database: what the parity step compares.
type Install struct {
	Variant Variant
	// DB is the database the variant was installed into; it lives until [Run] returns.
	DB *scratch.Database
	// Footprint is what the install changed in the catalog; Snapshot the catalog after it.
	Footprint *introspect.Footprint
	Snapshot  *introspect.Snapshot
	// Source is the parsed migration (nil when it does not parse).
	Source *pgsql.File
}

// ParityFunc compares two installs (catalog parity through the allowlist, behavioural probes)
// and returns the phase results to report, e.g. "parity" and "allowlist". The error is for
// infrastructure failures only; differences are findings.
type ParityFunc func(ctx context.Context, left, right *Install) ([]report.PhaseResult, error)

// ServerParityFunc is a parity step that installs the variants itself (ledgercheck/parity): it
// runs on srv concurrently with the rerun audits, and the gate installs nothing of its own.
type ServerParityFunc func(ctx context.Context, srv *scratch.Server) ([]report.PhaseResult, error)

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
	// Parity compares the gate's own installs; nil reports parity as skipped, unless
	// ServerParity is set.
	Parity ParityFunc
	// ServerParity, when set, replaces the gate's installs and Parity: it installs, compares
	// and probes by itself.
	ServerParity ServerParityFunc
	// Rerun audits each variant; nil reports the rerun audit as skipped.
	Rerun RerunFunc
	// Snapshot selects what the install footprints cover.
	Snapshot introspect.Options
	// Logf receives progress lines with step timings; nil discards them. It is called from
	// several goroutines, one call at a time.
	Logf func(format string, args ...any)
	// Tool, Version, Root and Rules are copied into the report.
	Tool, Version, Root string
	Rules               []report.RuleInfo
}

// Run runs the gate and returns its report. The steps and what runs concurrently:
//
//  1. the scratch server starts while both variants are linted;
//  2. each variant is installed into a fresh database at its dimension, one after the other,
//     because roles are cluster-wide and a footprint must not see the other install's roles;
//  3. then the rerun audit of each variant and the parity step run concurrently.
//
// A variant that does not install is a finding (rule install-failed) and the steps that need the
// install are reported as skipped. The error is for what the user must fix outside the
// migrations: no Postgres, a server that fails, an interrupted run.
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
	rep := &report.Report{Tool: opts.Tool, Version: opts.Version, Root: opts.Root, Rules: opts.Rules,
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
	sources := make([]*pgsql.File, 2)
	var wg sync.WaitGroup
	for i, v := range []Variant{opts.Left, opts.Right} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s0 := time.Now()
			fs := lint.Source(v.File, v.Src, opts.Lint, lint.Options{Dim: v.Dim})
			if f, err := pgsql.Parse(v.File, v.Src); err == nil {
				sources[i] = f
			}
			lints[i] = report.PhaseResult{Phase: report.PhaseLint, Name: "lint " + v.Name, File: v.File, Duration: time.Since(s0), Findings: fs}
			logf("check: lint %s: %d findings in %s", v.Name, len(fs), report.FormatDuration(lints[i].Duration))
		}()
	}
	wg.Wait()
	rep.Phases = append(rep.Phases, lints...)
	<-started
	if startErr != nil {
		return nil, startErr
	}

	// 2. Install each variant, one after the other (roles are cluster-wide). The template of
	// the second dimension is built meanwhile.
	installs := make([]*Install, 2)
	var installPhases []report.PhaseResult
	if opts.ServerParity == nil {
		installPhases = make([]report.PhaseResult, 2)
	}
	if opts.ServerParity == nil && opts.Right.Dim != opts.Left.Dim {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Warm the right dimension's template; the database itself is dropped with the server.
			if db, err := srv.NewDatabase(ctx, opts.Right.Dim); err == nil {
				_ = db.Drop(ctx)
			}
		}()
	}
	var installErr error
	for i, v := range []Variant{opts.Left, opts.Right} {
		if opts.ServerParity != nil {
			break
		}
		inst, ph, err := install(ctx, srv, v, sources[i], opts.Snapshot)
		if err != nil {
			installErr = err
			break
		}
		installs[i], installPhases[i] = inst, ph
		logf("check: install %s: %d findings in %s", v.Name, len(ph.Findings), report.FormatDuration(ph.Duration))
	}
	wg.Wait()
	if installErr != nil {
		return nil, installErr
	}
	rep.Phases = append(rep.Phases, installPhases...)

	// 3. Rerun audits and parity, concurrently.
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
	if opts.ServerParity != nil {
		// The parity step's installs come first and alone: roles are cluster-wide, and a rerun
		// audit creating a role meanwhile would show up in a footprint.
		s0 := time.Now()
		phs, err := opts.ServerParity(ctx, srv)
		if err != nil {
			return nil, err
		}
		parity = phs
		logf("check: parity: %d phases in %s", len(phs), report.FormatDuration(time.Since(s0)))
	}
	for i, v := range []Variant{opts.Left, opts.Right} {
		if opts.Rerun == nil {
			reruns[i] = skipped(report.PhaseRerun, "rerun "+v.Name, v.File, "the rerun audit is not available in this build")
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s0 := time.Now()
			ph, err := opts.Rerun(ctx, srv, v)
			if err != nil {
				fail(fmt.Errorf("rerun audit of %s: %w", v.File, err))
				return
			}
			ph.Phase = report.PhaseRerun
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
		}()
	}
	switch {
	case opts.ServerParity != nil:
		// Already run, before the reruns.
	case opts.Parity == nil:
		parity = []report.PhaseResult{skipped(report.PhaseParity, "parity", opts.Right.File, "the parity step is not available in this build")}
	case installs[0] == nil || installs[1] == nil || installPhases[0].Errors() > 0 || installPhases[1].Errors() > 0:
		parity = []report.PhaseResult{skipped(report.PhaseParity, "parity", opts.Right.File, "skipped: a variant did not install")}
	default:
		wg.Add(1)
		go func() {
			defer wg.Done()
			s0 := time.Now()
			phs, err := opts.Parity(ctx, installs[0], installs[1])
			if err != nil {
				fail(fmt.Errorf("parity: %w", err))
				return
			}
			for i := range phs {
				if phs[i].File == "" {
					phs[i].File = opts.Right.File
				}
			}
			parity = phs
			logf("check: parity: %d phases in %s", len(phs), report.FormatDuration(time.Since(s0)))
		}()
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

// install installs v into a fresh database at its dimension and returns it with its phase
// result. A migration the server rejects is an install-failed finding, not an error.
func install(ctx context.Context, srv *scratch.Server, v Variant, src *pgsql.File, opts introspect.Options) (*Install, report.PhaseResult, error) {
	s0 := time.Now()
	ph := report.PhaseResult{Phase: report.PhaseInstall, Name: "install " + v.Name, File: v.File}
	db, err := srv.NewDatabase(ctx, v.Dim)
	if err != nil {
		return nil, ph, err
	}
	fp, snap, err := introspect.FootprintOf(ctx, db, v.File, v.Src, opts)
	ph.Duration = time.Since(s0)
	if err != nil {
		if f, ok := InstallFinding(err); ok {
			ph.Findings = []report.Finding{f}
			return &Install{Variant: v, DB: db, Source: src}, ph, nil
		}
		if ctx.Err() != nil {
			return nil, ph, ctx.Err()
		}
		if fault.KindOf(err) == fault.Unknown {
			err = fault.Env(fmt.Errorf("installing %s: %w", v.File, err))
		}
		return nil, ph, err
	}
	ph.Notes = []string{fmt.Sprintf("%d objects created, %d changed, %d dropped at dimension %d", len(fp.Created), len(fp.Changed), len(fp.Dropped), v.Dim)}
	ph.Counts = map[string]int{"created": len(fp.Created), "changed": len(fp.Changed), "dropped": len(fp.Dropped)}
	return &Install{Variant: v, DB: db, Footprint: fp, Snapshot: snap, Source: src}, ph, nil
}

// RuleInstallFailed is the rule of a variant the server rejects.
const RuleInstallFailed = "install-failed"

// InstallFinding turns a rejected statement or a syntax error into an install-failed finding;
// it reports false for any other error.
func InstallFinding(err error) (report.Finding, bool) {
	var se *scratch.ScriptError
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
		return report.Finding{Phase: report.PhaseInstall, Rule: RuleInstallFailed, Severity: report.SevError, Pos: se.Pos,
			Message: fmt.Sprintf("the migration does not install: %s (SQLSTATE %s)", pe.Message, pe.Code), Detail: detail}, true
	}
	var syn *pgsql.SyntaxError
	if errors.As(err, &syn) {
		return report.Finding{Phase: report.PhaseInstall, Rule: RuleInstallFailed, Severity: report.SevError, Pos: syn.Pos,
			Message: "the migration does not install: " + syn.Msg}, true
	}
	return report.Finding{}, false
}

func skipped(ph report.Phase, name, file, why string) report.PhaseResult {
	return report.PhaseResult{Phase: ph, Name: name, File: file, Status: report.StatusSkip, Notes: []string{why}}
}
