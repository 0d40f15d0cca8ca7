package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/gate"
)

// parityFlags are the flags parity, allowlist suggest and check share: the configuration file,
// the fields flags may override, and the server.
type parityFlags struct {
	sf          serverFlags
	configPath  string
	artifact    string
	artifactDim int
	artifactDSN string
	port        string
	portDim     int
	portDSN     string
	allowlist   string
	noAllowlist bool
	only        string
	sidecar     string
}

func addParityFlags(cmd *cobra.Command, pf *parityFlags) {
	fl := cmd.Flags()
	fl.StringVar(&pf.sidecar, "sidecar", "", "in a repository's configuration (version 3), the sidecar to act on: installed over the sidecars it needs (check: check this one alone)")
	fl.StringVar(&pf.configPath, "config", "", "configuration file (default: "+config.DefaultFile+" in the working directory or the nearest directory above it in the repository, else the shipped artifact and port)")
	fl.StringVar(&pf.artifact, "artifact", "", "the artifact's migration, overriding artifact.file")
	fl.IntVar(&pf.artifactDim, "artifact-dim", 0, "vector dimension of the artifact's install, overriding artifact.dim")
	fl.StringVar(&pf.port, "port", "", "the port's migration, overriding the configured port's file (with several configured ports: compared instead of them)")
	fl.IntVar(&pf.portDim, "port-dim", 0, "vector dimension of the port's install, overriding the port's dim")
	fl.StringVar(&pf.artifactDSN, "artifact-dsn", "", "read the artifact from this existing database (only read) instead of installing it; its file is --artifact FILE, if given")
	fl.StringVar(&pf.portDSN, "port-dsn", "", "read the port from this existing database, a deployment (only read: one READ ONLY transaction), instead of installing it; its file is --port FILE, if given")
	fl.StringVar(&pf.allowlist, "allowlist", "", "allowlist file of the port, overriding its configured allowlist")
	fl.BoolVar(&pf.noAllowlist, "no-allowlist", false, "use no allowlist: every semantic difference is a finding")
	fl.StringVar(&pf.only, "only", "", "compare only the configured port of this name with the artifact")
	addServerFlags(cmd, &pf.sf)
}

// loadConfig reads the configuration the flags name and applies their overrides
// (config.Config.Override; check adds its own to more), then the server's flags.
func (pf *parityFlags) loadConfig(cmd *cobra.Command, g *globals, more ...func(*config.Overrides)) (*config.Config, error) {
	cfg, err := g.loadConfig(pf.configPath)
	if err != nil {
		return nil, err
	}
	if pf.artifact == "" && pf.artifactDSN == "" {
		if err := noConfiguration(cfg); err != nil {
			return nil, err
		}
	}
	fl := cmd.Flags()
	switch {
	case cfg.Version == config.RepositoryVersion && cmd.Name() == "check":
		if err := refuseVariantFlags(cmd, cfg); err != nil {
			return nil, err
		}
		pf.sf.applyLimits(fl, cfg.Limits)
		return cfg, pf.sf.applyPostgres(fl, cfg.Postgres)
	case cfg.Version == config.RepositoryVersion && pf.sidecar == "":
		var names []string
		for _, s := range cfg.Sidecars {
			names = append(names, s.Name)
		}
		return nil, fault.Input(fmt.Errorf("%s lists sidecars (version %d): name the one %s acts on with --sidecar NAME (its sidecars: %s); ledgercheck check checks them all", cfg.Path, config.RepositoryVersion, cmd.CommandPath(), strings.Join(names, ", ")))
	case cfg.Version == config.RepositoryVersion:
		if cfg, err = cfg.Sidecar(pf.sidecar); err != nil {
			return nil, err
		}
	case pf.sidecar != "":
		return nil, fault.Input(fmt.Errorf("--sidecar %s: %s describes one artifact (version %d), not a repository's sidecars (version %d)", pf.sidecar, cfg.Path, cfg.Version, config.RepositoryVersion))
	}
	o := config.Overrides{Only: pf.only, ArtifactFile: pf.artifact, ArtifactDSN: pf.artifactDSN,
		PortFile: pf.port, PortDSN: pf.portDSN, NoAllowlist: pf.noAllowlist,
		ArtifactDim: changed(fl, "artifact-dim", &pf.artifactDim), PortDim: changed(fl, "port-dim", &pf.portDim),
		Allowlist: changed(fl, "allowlist", &pf.allowlist)}
	for _, m := range more {
		m(&o)
	}
	if err := cfg.Override(o); err != nil {
		return nil, err
	}
	pf.sf.applyLimits(fl, cfg.Limits)
	if err := pf.sf.applyPostgres(fl, cfg.Postgres); err != nil {
		return nil, err
	}
	return cfg, nil
}

// suggestCommand is the command that writes port p's allowlist: the configuration named
// unless it is the working directory's, and the port named when there are several.
func suggestCommand(cfg *config.Config, p config.Port) string {
	cmd := "ledgercheck allowlist suggest --write"
	if cfg.Path != "" && cfg.Path != config.DefaultFile {
		cmd += " --config " + cfg.Path
	}
	if name := cfg.SidecarName(); name != "" {
		cmd += " --sidecar " + name
	}
	if len(cfg.Ports) > 1 {
		cmd += " --only " + p.Name
	}
	return cmd + " --allowlist " + p.Allowlist
}

// changed is v when the flag name was set, else nil: an override of the configuration.
func changed[T any](fl *pflag.FlagSet, name string, v *T) *T {
	if fl.Changed(name) {
		return v
	}
	return nil
}

func newParityCmd(g *globals) *cobra.Command {
	var (
		pf  parityFlags
		out = newOutputFlags()
	)
	cmd := &cobra.Command{
		Use:   "parity",
		Short: "Install the artifact and its ports side by side and diff each port through its reviewed allowlist",
		Long: `parity installs the artifact and each of its ports in parallel, each into its own scratch
database with the Supabase environment and the prerequisites at its own vector dimension (ports
at the same dimension share its template), and compares what each port's install created or
changed with the artifact's, attribute by attribute: tables, columns (types with typmods),
constraints, indexes, views, functions (signature, body, volatility, SECURITY DEFINER,
search_path, grants), triggers, policies, RLS, roles and grants. Function signatures are also
compared as declared in the source, since pg_proc keeps no typmod. vector(N) at each variant's own
dimension is taken as equal (the sites are listed in the report); any other typmod is a
difference.

It then loads the same fixture into every install and runs the same probe queries: each port's
results must be identical to the artifact's, row by row.

Every semantic difference must be accepted by an entry of the port's allowlist (see
` + "`ledgercheck allowlist suggest`" + `); cosmetic body differences (layout, comments) are reported
and never fail. An allowlist entry that accepts no difference is stale and fails.

The configuration (` + config.DefaultFile + `, or --config) names the artifact, the ports (each with its
name, dimension and allowlist), the prerequisites, the fixture and the probes. --artifact,
--artifact-dim, --port, --port-dim and --allowlist override it: the port flags act on the configured port, or, when the
configuration has several, --port FILE is compared instead of them. --only NAME compares one of
the configured ports; --no-allowlist uses none.

A variant can be read from an existing database instead of installed, to ask "is my production
port still what was reviewed, and does it match the artifact through the allowlist?":
--port-dsn URL (or dsn: on a port in the configuration; --artifact-dsn for the artifact). That
database is only read, in one REPEATABLE READ, READ ONLY transaction: nothing is created,
changed or set there, so the URL's role needs only CONNECT (the catalog is readable by every
role). What is compared are the objects that installing the files (the artifact's, and
--port FILE, the port's own, installed in a scratch database as usual) created or changed, plus
what is attached to them (columns, constraints, indexes, triggers, policies, grants, comments,
sequences owned by their columns), looked up in that database by identity; everything else in it
is out of scope. A difference there, such as a GRANT made after the review, is deployment drift,
reported like any other. Without --port FILE the declared signature typmods and the objects only
the port creates cannot be checked, and the probes do not run (the report says so). The report
gives the server version of each side.

  ledgercheck parity --port-dsn "postgres://reader@db.example.com/postgres" \
    --port migrations/ports/decision_ledger_1024.sql --port-dim 1024

Output: the phases "parity PORT", "probes PORT" and "allowlist PORT" of each port (as in
` + "`ledgercheck check`" + `'s report), in any of its formats (--format text, json, sarif, github or html on stdout; --output
FORMAT=PATH, repeatable, writes others from the same run).

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

// runParity loads the configuration and runs the gate's parity steps: the installs, the
// fixture, the probes and each port's comparison through its allowlist.
func runParity(cmd *cobra.Command, g *globals, pf *parityFlags) (*gate.Result, error) {
	cfg, err := pf.loadConfig(cmd, g)
	if err != nil {
		return nil, err
	}
	return runGateParity(cmd, g, pf, cfg)
}

// runGateParity runs the gate's parity steps for a loaded configuration.
func runGateParity(cmd *cobra.Command, g *globals, pf *parityFlags, cfg *config.Config) (*gate.Result, error) {
	return runGateParityWith(cmd, g, pf, cfg, nil)
}

// runGateParityWith is runGateParity with the first port's allowlist given (al, when not nil)
// rather than read from the configuration: allowlist suggest reads it as a draft.
func runGateParityWith(cmd *cobra.Command, g *globals, pf *parityFlags, cfg *config.Config, al *allowlist.File) (*gate.Result, error) {
	if len(cfg.Ports) == 0 {
		return nil, fault.Input(fmt.Errorf("no port to compare with the artifact: %s has no ports; pass --port FILE --port-dim N", orConfig(cfg)))
	}
	req, err := gateRequest(cfg, g, &pf.sf, "parity", gate.Steps{Parity: true})
	if err != nil {
		return nil, err
	}
	if al != nil {
		req.Ports[0].Allowlist = al
	}
	return gate.Run(cmd.Context(), req)
}

// orConfig names the configuration in messages: its file, or the shipped default.
func orConfig(cfg *config.Config) string {
	if cfg.Path == "" {
		return "the shipped default configuration"
	}
	return cfg.Path
}
