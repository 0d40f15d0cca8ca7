package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ledgercheck/internal/allowlist"
	"ledgercheck/internal/config"
	"ledgercheck/internal/fault"
	"ledgercheck/internal/gate"
	"ledgercheck/internal/input"
	"ledgercheck/internal/parity"
	"ledgercheck/internal/scratch"
)

// parityFlags are the flags parity, allowlist suggest and check share: the configuration file,
// the fields flags may override, and the server.
type parityFlags struct {
	sf          serverFlags
	configPath  string
	artifact    string
	artifactDim int
	port        string
	portDim     int
	allowlist   string
}

func addParityFlags(cmd *cobra.Command, pf *parityFlags) {
	cmd.Flags().StringVar(&pf.configPath, "config", "", "configuration file (default: "+config.DefaultFile+" in the working directory when present, else the shipped artifact and port)")
	cmd.Flags().StringVar(&pf.artifact, "artifact", "", "the artifact's migration, overriding variants.left.file")
	cmd.Flags().IntVar(&pf.artifactDim, "artifact-dim", 0, "vector dimension of the artifact's install, overriding variants.left.dim")
	cmd.Flags().StringVar(&pf.port, "port", "", "the port's migration, overriding variants.right.file")
	cmd.Flags().IntVar(&pf.portDim, "port-dim", 0, "vector dimension of the port's install, overriding variants.right.dim")
	alias(cmd, "left", "artifact")
	alias(cmd, "left-dim", "artifact-dim")
	alias(cmd, "right", "port")
	alias(cmd, "right-dim", "port-dim")
	cmd.Flags().StringVar(&pf.allowlist, "allowlist", "", "allowlist file, overriding the configuration's allowlist")
	addServerFlags(cmd, &pf.sf)
}

// loadConfig reads the configuration the flags name and applies the overrides.
func (pf *parityFlags) loadConfig(cmd *cobra.Command) (*config.Config, error) {
	cfg, err := loadConfig(pf.configPath)
	if err != nil {
		return nil, err
	}
	if pf.artifact != "" {
		cfg.Variants.Artifact.File = pf.artifact
	}
	if pf.port != "" {
		cfg.Variants.Port.File = pf.port
	}
	if cmd.Flags().Changed("artifact-dim") {
		cfg.Variants.Artifact.Dim = pf.artifactDim
	}
	if cmd.Flags().Changed("port-dim") {
		cfg.Variants.Port.Dim = pf.portDim
	}
	if cmd.Flags().Changed("allowlist") {
		cfg.Allowlist = pf.allowlist
	}
	for _, d := range []struct {
		flag string
		dim  int
	}{{"--artifact-dim", cfg.Variants.Artifact.Dim}, {"--port-dim", cfg.Variants.Port.Dim}} {
		if d.dim < 1 || d.dim > 16000 {
			return nil, fault.Input(fmt.Errorf("%s %d: want a dimension from 1 to 16000", d.flag, d.dim))
		}
	}
	pf.sf.applyLimits(cmd.Flags(), cfg.Limits)
	if err := pf.sf.applyPostgres(cmd.Flags(), cfg.Postgres); err != nil {
		return nil, err
	}
	return cfg, nil
}

// gateRequest reads every file the configuration names into a gate request (steps aside): the
// artifact, its port with the allowlist, the extra files, the fixture and the probes, with the
// server the flags describe.
func gateRequest(cfg *config.Config, g *globals, sf *serverFlags) (gate.Request, error) {
	req := gate.Request{
		Lint: cfg.Lint, NoPrerequisites: cfg.Environment.Prerequisites == "none",
		Start: func(ctx context.Context) (*scratch.Server, error) { return g.startServer(ctx, sf) },
		Logf:  func(format string, args ...any) { g.logf(format, args...) },
		Tool:  "ledgercheck", Version: Version, Root: ".",
	}
	if cfg.Path != "" {
		req.Root = filepath.Dir(cfg.Path)
	}
	var err error
	if req.Postgres, err = sf.postgres(); err != nil {
		return req, err
	}
	read := func(path string, k input.Kind) (*gate.Script, error) {
		src, err := input.ReadFile(path, k)
		if err != nil {
			return nil, fault.Input(err)
		}
		return &gate.Script{Name: path, Src: src}, nil
	}
	if req.Artifact, err = variant("artifact", cfg.Variants.Artifact); err != nil {
		return req, err
	}
	port, err := variant("port", cfg.Variants.Port)
	if err != nil {
		return req, err
	}
	for _, x := range cfg.Environment.Extra {
		s, err := read(x, input.Migration)
		if err != nil {
			return req, err
		}
		req.Extra = append(req.Extra, *s)
	}
	if cfg.Fixture != "" {
		if req.Fixture, err = read(cfg.Fixture, input.Fixture); err != nil {
			return req, err
		}
	}
	for _, p := range cfg.Probes {
		req.Probes = append(req.Probes, parity.Probe{Name: p.Name, SQL: p.SQL, Tolerance: p.Tolerance, Role: p.Role})
	}
	var al *allowlist.File
	if cfg.Allowlist != "" {
		al, err = allowlist.Load(cfg.Allowlist)
		if errors.Is(err, fs.ErrNotExist) {
			return req, fault.Input(fmt.Errorf("%s: no such allowlist file (create one with `ledgercheck allowlist suggest > %s`)", cfg.Allowlist, cfg.Allowlist))
		}
		if err != nil {
			return req, err
		}
	}
	req.Ports = []gate.Port{{Variant: port, Allowlist: al}}
	return req, nil
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
fixture and the probes; --artifact, --artifact-dim, --port, --port-dim and --allowlist override
it (--left and --right, the names of earlier versions, still work).

Output: the phases parity, probes and allowlist of ` + "`ledgercheck check`" + `'s report, in any of its
formats (--format text, json, sarif, github or html).

Exit codes: 0 every difference allowlisted; 1 an unreviewed difference, a stale entry, or an
install that failed; 2 a configuration or input error (with file:line); 3 no Postgres.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			res, err := runParity(cmd, g, &pf)
			if err != nil {
				return err
			}
			return out.render(g, res.Report)
		},
	}
	addParityFlags(cmd, &pf)
	out.add(cmd)
	return cmd
}

// runParity loads the configuration and runs the gate's parity steps: both installs, the
// fixture, the probes and the comparison through the allowlist.
func runParity(cmd *cobra.Command, g *globals, pf *parityFlags) (*gate.Result, error) {
	cfg, err := pf.loadConfig(cmd)
	if err != nil {
		return nil, err
	}
	req, err := gateRequest(cfg, g, &pf.sf)
	if err != nil {
		return nil, err
	}
	req.Steps, req.Command = gate.Steps{Parity: true}, "parity"
	return gate.Run(cmd.Context(), req)
}

// alias adds the hidden, deprecated flag old as another name of the flag name: old scripts keep
// working, and a note on stderr names the new flag.
func alias(cmd *cobra.Command, old, name string) {
	f := cmd.Flags().Lookup(name)
	cmd.Flags().AddFlag(&pflag.Flag{Name: old, Usage: f.Usage, DefValue: f.DefValue,
		Value: deprecatedValue{Value: f.Value, note: func() {
			fmt.Fprintf(cmd.ErrOrStderr(), "ledgercheck: --%s is deprecated; use --%s\n", old, name)
		}}})
	if err := cmd.Flags().MarkHidden(old); err != nil {
		panic(err) // the flag was just added
	}
}

// deprecatedValue is a flag's value under a deprecated name: setting it notes the new name.
type deprecatedValue struct {
	pflag.Value
	note func()
}

func (d deprecatedValue) Set(s string) error {
	d.note()
	return d.Value.Set(s)
}
