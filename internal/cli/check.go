package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"ledgercheck/internal/config"
	"ledgercheck/internal/crosscheck"
	"ledgercheck/internal/fault"
	"ledgercheck/internal/finding"
	"ledgercheck/internal/gate"
	"ledgercheck/internal/input"
	"ledgercheck/internal/lint"
	"ledgercheck/internal/parity"
	"ledgercheck/internal/report"
	"ledgercheck/internal/rerun"
	"ledgercheck/internal/scratch"
)

func init() { register(10, newCheckCmd) }

// checkFlags are the flags of check: parity's (configuration, variants, allowlist, server) and
// those of the rerun audit and the report.
type checkFlags struct {
	parityFlags
	noAllowlist   bool
	fixture       string
	leftPrevious  string
	rightPrevious string
	times         int
	out           outputFlags
}

func newCheckCmd(g *globals) *cobra.Command {
	cmd, _ := buildCheckCmd(g)
	return cmd
}

// buildCheckCmd returns the check command and the flags it fills in.
func buildCheckCmd(g *globals) (*cobra.Command, *checkFlags) {
	f := &checkFlags{out: newOutputFlags()}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Run the whole gate: lint, install, rerun and parity of the artifact and its port",
		Long: `check runs the whole pre-merge gate, as ledgercheck.yaml in the working directory describes it
(or the file --config names; without one, the shipped artifact and port): it lints both variants,
installs each into a throwaway Supabase-like database at its dimension, audits reruns (and the
upgrade from variants.<side>.previous), compares the two installs attribute by attribute
through the allowlist, runs the probes on a shared fixture, cross-checks each install against
lint, and prints one report: a summary table (phase, status, findings, time), then the findings
grouped by phase. Flags override the file, so a contributor can check a port without editing it:

  ledgercheck check --right my_port.sql --right-dim 768

Formats: text (colored on a terminal unless NO_COLOR is set), json (docs/json-schema.md), sarif
(2.1.0, for GitHub code scanning), github (workflow-command annotations; with
$GITHUB_STEP_SUMMARY set, the full report is appended to it as markdown) and html (one
self-contained page with side-by-side diffs). Progress with step timings goes to stderr.

Exit codes: 0 passed; 1 findings (a lint error, an unreviewed difference, a stale allowlist
entry, a failed rerun or install); 2 usage, configuration or input error; 3 environment error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := f.options(cmd, g)
			if err != nil {
				return err
			}
			rep, err := gate.Run(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return f.out.render(g, rep)
		},
	}
	fl := cmd.Flags()
	addParityFlags(cmd, &f.parityFlags)
	fl.BoolVar(&f.noAllowlist, "no-allowlist", false, "use no allowlist: every semantic difference is a finding")
	fl.StringVar(&f.fixture, "fixture", "", "SQL loaded after each install for the rerun audit and the probes (overrides fixture)")
	fl.StringVar(&f.leftPrevious, "left-previous", "", "previous version of the artifact, for its upgrade audit (overrides variants.left.previous)")
	fl.StringVar(&f.rightPrevious, "right-previous", "", "previous version of the port, for its upgrade audit (overrides variants.right.previous)")
	fl.IntVar(&f.times, "times", 0, "how many times the rerun audit applies each variant (overrides rerun.times)")
	f.out.add(cmd)
	return cmd, f
}

// options builds the gate's options from ledgercheck.yaml and the flags.
func (f *checkFlags) options(cmd *cobra.Command, g *globals) (gate.Options, error) {
	if err := f.out.validate(); err != nil {
		return gate.Options{}, err
	}
	cfg, err := f.loadConfig(cmd)
	if err != nil {
		return gate.Options{}, err
	}
	fl := cmd.Flags()
	if f.noAllowlist {
		cfg.Allowlist = ""
	}
	if f.fixture != "" {
		cfg.Fixture = f.fixture
	}
	if f.leftPrevious != "" {
		cfg.Variants.Left.Previous = f.leftPrevious
	}
	if f.rightPrevious != "" {
		cfg.Variants.Right.Previous = f.rightPrevious
	}
	if fl.Changed("times") {
		if f.times < 1 {
			return gate.Options{}, fault.Input(fmt.Errorf("--times %d: want at least 1", f.times))
		}
		cfg.Rerun.Times = f.times
	}

	left, err := variant("artifact", cfg.Variants.Left)
	if err != nil {
		return gate.Options{}, err
	}
	right, err := variant("port", cfg.Variants.Right)
	if err != nil {
		return gate.Options{}, err
	}
	popts, err := parityOptions(cfg, g)
	if err != nil {
		return gate.Options{}, err
	}
	popts.Log = nil // the gate logs its own step timings
	var fixture *rerun.Script
	if popts.Fixture != nil {
		fixture = &rerun.Script{Name: popts.Fixture.Name, Src: popts.Fixture.Src}
	}

	root := "."
	if cfg.Path != "" {
		root = filepath.Dir(cfg.Path)
	}
	times := cfg.Rerun.Times
	return gate.Options{
		Left: left, Right: right, Lint: cfg.Lint,
		Start: func(ctx context.Context) (*scratch.Server, error) { return g.startServer(ctx, &f.sf) },
		Parity: func(ctx context.Context, srv *scratch.Server) ([]report.PhaseResult, error) {
			return runGateParity(ctx, srv, popts, cfg.Lint)
		},
		Rerun: func(ctx context.Context, srv *scratch.Server, v gate.Variant) (report.PhaseResult, error) {
			var previous *rerun.Script
			if v.Previous != "" {
				previous = &rerun.Script{Name: v.Previous, Src: v.PreviousSrc}
			}
			res, err := rerun.Audit(ctx, srv, rerun.Options{File: rerun.Script{Name: v.File, Src: v.Src}, Dim: v.Dim, Times: times, Previous: previous, Fixture: fixture})
			if err != nil {
				return report.PhaseResult{}, err
			}
			// One phase per audit in rerun's own report; the gate shows one per variant.
			ph := report.PhaseResult{Duration: res.Timings.Total, Counts: map[string]int{"runs": res.Runs, "tables": res.Tables, "rows": int(res.Rows)}}
			for _, p := range res.Phases() {
				ph.Findings = append(ph.Findings, p.Findings...)
				ph.Notes = append(ph.Notes, p.Notes...)
			}
			return ph, nil
		},
		Logf:    func(format string, args ...any) { g.logf(format, args...) },
		Tool:    "ledgercheck",
		Version: Version,
		Root:    root,
	}, nil
}

// runGateParity runs ledgercheck/parity on srv and splits its findings into the gate's parity,
// probes and allowlist phases, and cross-checks each installed footprint against lint's reading
// of the migration (a "lint installed" phase per variant).
func runGateParity(ctx context.Context, srv *scratch.Server, opts parity.Options, lintCfg lint.Config) ([]report.PhaseResult, error) {
	rep, err := parity.Run(ctx, srv, opts)
	if err != nil {
		// The migration under review does not install: a finding, and nothing to compare.
		if ph, ok := installPhase(err); ok {
			return []report.PhaseResult{ph}, nil
		}
		return nil, err
	}
	phases := rep.Phases("artifact", "port")
	for i, v := range []parity.Variant{opts.Left, opts.Right} {
		if rep.Footprints[i] == nil || rep.Sources[i] == nil {
			continue
		}
		phases = append(phases, report.PhaseResult{Phase: finding.PhaseLint, Name: "lint installed " + [2]string{"artifact", "port"}[i], File: v.Name,
			Findings: crosscheck.Check(rep.Sources[i], lintCfg, rep.Footprints[i]),
			Notes:    []string{"what installing the file changed on pre-existing objects, against what its statements visibly do"}})
	}
	return phases, nil
}

// loadConfig reads the configuration: the file named, else ledgercheck.yaml in the working
// directory, else the defaults (the shipped artifact and port).
func loadConfig(path string) (*config.Config, error) {
	if path != "" {
		cfg, err := config.Load(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fault.Input(fmt.Errorf("--config %s: no such file", path))
		}
		return cfg, err
	}
	if _, err := os.Stat(config.DefaultFile); err == nil {
		return config.Load(config.DefaultFile)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fault.Input(fmt.Errorf("%s: %w", config.DefaultFile, err))
	}
	return config.Default(), nil
}

// variant reads a variant's migration.
func variant(name string, v config.Variant) (gate.Variant, error) {
	if v.File == "" {
		return gate.Variant{}, fault.Input(fmt.Errorf("the %s has no file; set variants.%s.file in %s or pass --%s", name, side(name), config.DefaultFile, side(name)))
	}
	src, err := input.ReadFile(v.File, input.Migration)
	if err != nil {
		return gate.Variant{}, fault.Input(err)
	}
	gv := gate.Variant{Name: name, File: v.File, Src: src, Dim: v.Dim, Previous: v.Previous}
	if v.Previous != "" {
		if gv.PreviousSrc, err = input.ReadFile(v.Previous, input.Migration); err != nil {
			return gate.Variant{}, fault.Input(fmt.Errorf("variants.%s.previous: %w", side(name), err))
		}
	}
	return gv, nil
}

func side(name string) string {
	if name == "artifact" {
		return "left"
	}
	return "right"
}

// installPhase turns a variant that does not install into the phase "install VARIANT" with its
// install-failed finding; it reports false for any other error.
func installPhase(err error) (report.PhaseResult, bool) {
	var ie *parity.InstallError
	if !errors.As(err, &ie) {
		return report.PhaseResult{}, false
	}
	f, ok := gate.InstallFinding(ie.Err)
	if !ok {
		return report.PhaseResult{}, false
	}
	return report.PhaseResult{Phase: finding.PhaseInstall, Name: "install " + ie.Side, File: ie.File, Findings: []finding.Finding{f}}, true
}
