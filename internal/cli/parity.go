package cli

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"ledgercheck/internal/allowlist"
	"ledgercheck/internal/config"
	"ledgercheck/internal/fault"
	"ledgercheck/internal/input"
	"ledgercheck/internal/parity"
	"ledgercheck/internal/report"
)

func init() { register(30, newParityCmd) }

// parityFlags are the flags parity, allowlist suggest and check share: the configuration file,
// the fields flags may override, and the server.
type parityFlags struct {
	sf         serverFlags
	configPath string
	left       string
	leftDim    int
	right      string
	rightDim   int
	allowlist  string
}

func addParityFlags(cmd *cobra.Command, pf *parityFlags) {
	cmd.Flags().StringVar(&pf.configPath, "config", "", "configuration file (default: "+config.DefaultFile+" in the working directory when present, else the shipped artifact and port)")
	cmd.Flags().StringVar(&pf.left, "left", "", "left migration (the artifact), overriding variants.left.file")
	cmd.Flags().IntVar(&pf.leftDim, "left-dim", 0, "vector dimension of the left install, overriding variants.left.dim")
	cmd.Flags().StringVar(&pf.right, "right", "", "right migration (the port), overriding variants.right.file")
	cmd.Flags().IntVar(&pf.rightDim, "right-dim", 0, "vector dimension of the right install, overriding variants.right.dim")
	cmd.Flags().StringVar(&pf.allowlist, "allowlist", "", "allowlist file, overriding the configuration's allowlist")
	addServerFlags(cmd, &pf.sf)
}

// loadConfig reads the configuration the flags name and applies the overrides.
func (pf *parityFlags) loadConfig(cmd *cobra.Command) (*config.Config, error) {
	cfg, err := loadConfig(pf.configPath)
	if err != nil {
		return nil, err
	}
	if pf.left != "" {
		cfg.Variants.Left.File = pf.left
	}
	if pf.right != "" {
		cfg.Variants.Right.File = pf.right
	}
	if cmd.Flags().Changed("left-dim") {
		cfg.Variants.Left.Dim = pf.leftDim
	}
	if cmd.Flags().Changed("right-dim") {
		cfg.Variants.Right.Dim = pf.rightDim
	}
	if cmd.Flags().Changed("allowlist") {
		cfg.Allowlist = pf.allowlist
	}
	for _, d := range []struct {
		flag string
		dim  int
	}{{"--left-dim", cfg.Variants.Left.Dim}, {"--right-dim", cfg.Variants.Right.Dim}} {
		if d.dim < 1 || d.dim > 16000 {
			return nil, fault.Input(fmt.Errorf("%s %d: want a dimension from 1 to 16000", d.flag, d.dim))
		}
	}
	pf.sf.applyLimits(cmd.Flags(), cfg.Limits)
	return cfg, nil
}

// parityOptions reads every file the configuration names into parity options.
func parityOptions(cfg *config.Config, g *globals) (parity.Options, error) {
	opts := parity.Options{
		NoPrerequisites: cfg.Environment.Prerequisites == "none",
	}
	if !g.quiet {
		opts.Log = g.stderr
	}
	read := func(path string, k input.Kind) (parity.Script, error) {
		src, err := input.ReadFile(path, k)
		if err != nil {
			return parity.Script{}, fault.Input(err)
		}
		return parity.Script{Name: path, Src: src}, nil
	}
	var err error
	if opts.Left.Script, err = read(cfg.Variants.Left.File, input.Migration); err != nil {
		return opts, err
	}
	if opts.Right.Script, err = read(cfg.Variants.Right.File, input.Migration); err != nil {
		return opts, err
	}
	opts.Left.Dim, opts.Right.Dim = cfg.Variants.Left.Dim, cfg.Variants.Right.Dim
	for _, x := range cfg.Environment.Extra {
		s, err := read(x, input.Migration)
		if err != nil {
			return opts, err
		}
		opts.Extra = append(opts.Extra, s)
	}
	if cfg.Fixture != "" {
		s, err := read(cfg.Fixture, input.Fixture)
		if err != nil {
			return opts, err
		}
		opts.Fixture = &s
	}
	for _, p := range cfg.Probes {
		opts.Probes = append(opts.Probes, parity.Probe{Name: p.Name, SQL: p.SQL, Tolerance: p.Tolerance, Role: p.Role})
	}
	if cfg.Allowlist != "" {
		a, err := allowlist.Load(cfg.Allowlist)
		if errors.Is(err, fs.ErrNotExist) {
			return opts, fault.Input(fmt.Errorf("%s: no such allowlist file (create one with `ledgercheck allowlist suggest > %s`)", cfg.Allowlist, cfg.Allowlist))
		}
		if err != nil {
			return opts, err
		}
		opts.Allowlist = a
	}
	return opts, nil
}

func newParityCmd(g *globals) *cobra.Command {
	var (
		pf  parityFlags
		out = newOutputFlags()
	)
	cmd := &cobra.Command{
		Use:   "parity",
		Short: "Install the artifact and a port side by side and diff them through the reviewed allowlist",
		Long: `parity installs the artifact and a port in parallel, each into its own scratch database with the
Supabase environment and the prerequisites at its own vector dimension, and compares what each
install created or changed, attribute by attribute: tables, columns (types with typmods),
constraints, indexes, views, functions (signature, body, volatility, SECURITY DEFINER,
search_path, grants), triggers, policies, RLS, roles and grants. Function signatures are also
compared as declared in the source, since pg_proc keeps no typmod. vector(N) at each variant's own
dimension is taken as equal (the sites are listed in the report); any other typmod is a
difference.

It then loads the same fixture into both installs and runs the same probe queries: the results
must be identical row by row.

Every semantic difference must be accepted by an entry of the allowlist (see
` + "`ledgercheck allowlist suggest`" + `); cosmetic body differences (layout, comments) are reported
and never fail. An allowlist entry that accepts no difference is stale and fails.

The configuration (` + config.DefaultFile + `, or --config) names the variants, the allowlist, the
fixture and the probes; --left, --left-dim, --right, --right-dim and --allowlist override it.

Output: the phases parity, probes and allowlist of ` + "`ledgercheck check`" + `'s report, in any of its
formats (--format text, json, sarif, github or html).

Exit codes: 0 every difference allowlisted; 1 an unreviewed difference, a stale entry, or an
install that failed; 2 a configuration or input error (with file:line); 3 no Postgres.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			rep, phases, err := runParity(cmd, g, &pf)
			if err != nil {
				return err
			}
			r := &report.Report{Tool: "ledgercheck", Version: Version, Root: ".", Phases: phases}
			if rep != nil {
				r.Duration = rep.Timings.Total
			}
			r.Finish()
			return out.render(g, r)
		},
	}
	addParityFlags(cmd, &pf)
	out.add(cmd)
	return cmd
}

// runParity loads the configuration, starts the server and runs the parity check. It returns
// the parity report and its phases, or, when a variant does not install, no report and the
// install phase with its install-failed finding.
func runParity(cmd *cobra.Command, g *globals, pf *parityFlags) (*parity.Report, []report.PhaseResult, error) {
	cfg, err := pf.loadConfig(cmd)
	if err != nil {
		return nil, nil, err
	}
	opts, err := parityOptions(cfg, g)
	if err != nil {
		return nil, nil, err
	}
	ctx := cmd.Context()
	srv, err := g.startServer(ctx, &pf.sf)
	if err != nil {
		return nil, nil, err
	}
	defer srv.Close()
	rep, err := parity.Run(ctx, srv, opts)
	if err != nil {
		ph, ok := installPhase(err)
		if !ok {
			return nil, nil, err
		}
		return nil, []report.PhaseResult{ph}, nil
	}
	return rep, rep.Phases("artifact", "port"), nil
}
