package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

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
			if err := f.out.write(g, rep); err != nil {
				return err
			}
			if rep.Failed() {
				return fault.ErrFindings
			}
			return nil
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
	s0 := time.Now()
	rep, err := parity.Run(ctx, srv, opts)
	if err != nil {
		var ie *parity.InstallError
		if !errors.As(err, &ie) {
			return nil, err
		}
		// The migration under review does not install: a finding, and nothing to compare.
		f, ok := gate.InstallFinding(ie.Err)
		if !ok {
			return nil, err
		}
		return []report.PhaseResult{{Phase: finding.PhaseInstall, Name: "install " + ie.Side, File: ie.File, Duration: time.Since(s0), Findings: []finding.Finding{f}}}, nil
	}
	sum := rep.Summary()
	par := report.PhaseResult{Phase: finding.PhaseParity, Name: "parity", File: opts.Right.Name, Duration: rep.Timings.Total,
		Counts: map[string]int{"differences": sum.Differences, "allowlisted": sum.Allowlisted, "unreviewed": sum.Unreviewed,
			"cosmetic": sum.Cosmetic, "normalized": sum.DimensionSites},
		Notes: []string{fmt.Sprintf("%d differences between %s (%d) and %s (%d): %d allowlisted, %d cosmetic, %d unreviewed; installs %s, diff %s",
			sum.Differences, opts.Left.Name, opts.Left.Dim, opts.Right.Name, opts.Right.Dim, sum.Allowlisted, sum.Cosmetic, sum.Unreviewed,
			report.FormatDuration(rep.Timings.Install), report.FormatDuration(rep.Timings.Diff))}}
	if len(rep.Sites) > 0 {
		var names []string
		for _, st := range rep.Sites {
			names = append(names, st.String())
		}
		par.Notes = append(par.Notes, fmt.Sprintf("%d dimension normalizations (vector(%d) on the left is vector(%d) on the right): %s",
			len(rep.Sites), opts.Left.Dim, opts.Right.Dim, strings.Join(names, "; ")))
	}
	probes := report.PhaseResult{Phase: finding.PhaseProbe, Name: "probes", File: opts.Right.Name,
		Counts: map[string]int{"probes": sum.Probes, "differing": sum.ProbesDiffering},
		Notes:  []string{fmt.Sprintf("%d probes on the fixture, %d return different rows", sum.Probes, sum.ProbesDiffering)}}
	al := report.PhaseResult{Phase: finding.PhaseAllow, Name: "allowlist", File: rep.Allowlist, Counts: map[string]int{"stale": sum.Stale}}
	if rep.Allowlist == "" {
		al.Notes = []string{"no allowlist: every semantic difference is a finding"}
	} else {
		al.Notes = []string{fmt.Sprintf("%s: %d differences accepted, %d stale entries", rep.Allowlist, sum.Allowlisted, sum.Stale)}
	}
	for _, f := range rep.Findings() {
		switch f.Phase {
		case finding.PhaseProbe:
			probes.Findings = append(probes.Findings, f)
		case finding.PhaseAllow:
			al.Findings = append(al.Findings, f)
		default:
			par.Findings = append(par.Findings, f)
		}
	}
	phases := []report.PhaseResult{par, probes, al}
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
