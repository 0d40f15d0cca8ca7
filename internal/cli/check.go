package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/input"
)

// checkFlags are the flags of check: parity's (configuration, variants, allowlist, server) and
// those of the rerun audit and the report.
type checkFlags struct {
	parityFlags
	fixture          string
	artifactPrevious string
	portPrevious     string
	times            int
	changed          string
	tableStats       string
	out              outputFlags
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
		Short: "Run the whole gate: lint, install, rerun and parity of the artifact and its ports",
		Long: `check runs the whole pre-merge gate, as ledgercheck.yaml describes it (the working directory's, or
the nearest one above it in the repository, or the file --config names; without one, the shipped
artifact and port): it lints the artifact and each port, installs each into a throwaway
Supabase-like database at its dimension, audits reruns (and the upgrade from each variant's
previous version), compares each port's install with the artifact's attribute by attribute through
the port's allowlist, runs the probes on a shared fixture, cross-checks each install against lint,
audits what anon and authenticated can do with what each install created (the security lints of
Supabase's advisors, asked of the installed catalog), checks the code each install created
(plpgsql_check on every PL/pgSQL body, each view and SQL function planned) and runs each pg_cron
job the file schedules once after its install, and prints one report: a summary table
(phase, status, findings, time), then the findings grouped by phase, each port's under its own
name. With no ports configured, it checks the artifact alone and reports parity as skipped. Flags
override the file, so a contributor can check a port without editing it:

  ledgercheck check --port my_port.sql --port-dim 768

A configuration of version 3 lists a repository's sidecars (sidecars:, each with what it needs):
check then checks every sidecar in one run, each over the sidecars it needs and under its own
name, with one verdict. --changed REF checks only the sidecars whose file changed since the merge
base of HEAD and REF, and those that need them, each changed file's upgrade audited from its
version at the merge base; when nothing changed it exits 0 and says so:

  ledgercheck check --changed origin/main

It runs on PostgreSQL 15 unless --pg 17 (or postgres: 17 in the configuration) asks for 17, the
version new Supabase projects run; the report says which version each variant ran on.

Formats: text (colored on a terminal unless NO_COLOR is set), json (docs/json-schema.md), sarif
(2.1.0, for GitHub code scanning), github (workflow-command annotations; with
$GITHUB_STEP_SUMMARY set, the full report is appended to it as markdown) and html (one
self-contained page with side-by-side diffs). --format is stdout's; --output FORMAT=PATH
(repeatable) writes more formats from the same run, e.g. --format github --output
sarif=ledgercheck.sarif --output html=report.html. Progress with step timings goes to stderr.

Exit codes: 0 passed; 1 findings (a lint error, an unreviewed difference, a stale allowlist
entry, a failed rerun or install, an exposure the audit found, a body that cannot run); 2 usage, configuration or input error; 3 environment error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.out.validate(); err != nil {
				return err
			}
			cfg, err := f.loadConfig(cmd, g, f.overrides(cmd))
			if err != nil {
				return err
			}
			if cfg.Version == config.RepositoryVersion || f.changed != "" {
				return f.runRepository(cmd, g, cfg)
			}
			req, err := gateRequest(cfg, g, &f.sf, "check", checkSteps)
			if err != nil {
				return err
			}
			res, err := gate.Run(cmd.Context(), req)
			if err != nil {
				return err
			}
			return f.out.render(g, res.Report)
		},
	}
	fl := cmd.Flags()
	addParityFlags(cmd, &f.parityFlags)
	fl.StringVar(&f.fixture, "fixture", "", "SQL loaded after each install for the rerun audit and the probes (overrides fixture)")
	fl.StringVar(&f.artifactPrevious, "artifact-previous", "", "previous version of the artifact, for its upgrade audit (overrides artifact.previous)")
	fl.StringVar(&f.portPrevious, "port-previous", "", "previous version of the port, for its upgrade audit (overrides the port's previous)")
	fl.IntVar(&f.times, "times", 0, "how many times the rerun audit applies each variant (overrides rerun.times)")
	fl.StringVar(&f.tableStats, "table-stats", "", "production's row counts and sizes per table (JSON or CSV, exported by the query of docs/reference/table-stats.md), which grade the locks each statement takes on existing tables (overrides table_stats)")
	fl.StringVar(&f.changed, "changed", "", "check only the sidecars whose file changed since the merge base of HEAD and this ref (e.g. origin/main), and those that need them; each changed file's upgrade audit runs from its version there")
	f.out.add(cmd)
	return cmd, f
}

// overrides are check's own overrides of the configuration: the fixture, previous versions and
// the rerun's count.
func (f *checkFlags) overrides(cmd *cobra.Command) func(*config.Overrides) {
	fl := cmd.Flags()
	return func(o *config.Overrides) {
		o.Fixture, o.ArtifactPrevious, o.TableStats = f.fixture, f.artifactPrevious, f.tableStats
		o.PortPrevious, o.Times = changed(fl, "port-previous", &f.portPrevious), changed(fl, "times", &f.times)
	}
}

// request builds the gate's request from ledgercheck.yaml and the flags.
func (f *checkFlags) request(cmd *cobra.Command, g *globals) (gate.Request, error) {
	if err := f.out.validate(); err != nil {
		return gate.Request{}, err
	}
	cfg, err := f.loadConfig(cmd, g, f.overrides(cmd))
	if err != nil {
		return gate.Request{}, err
	}
	return gateRequest(cfg, g, &f.sf, "check", checkSteps)
}

// loadConfig reads the configuration: the file named, else ledgercheck.yaml in the working
// directory or the nearest directory above it in its repository (config.Find), else the
// defaults (the shipped artifact and port), confined to the working directory's repository.
// Every file read for the configuration, or named on the command line beside it, is read
// through its Scope.
func (g *globals) loadConfig(path string) (*config.Config, error) {
	if path != "" {
		cfg, err := config.Load(path, g.allowOutside)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fault.Input(fmt.Errorf("--config %s: no such file", path))
		}
		return cfg, err
	}
	found, err := config.Find(".")
	if err != nil {
		return nil, fault.Input(fmt.Errorf("looking for %s: %w", config.DefaultFile, err))
	}
	if found != "" {
		return config.Load(found, g.allowOutside)
	}
	cfg := config.Default()
	cfg.Scope = g.scope()
	return cfg, nil
}

// noConfiguration is the error of a command that needs a migration when no configuration was
// found and the shipped default's artifact is not here either (a repository of another
// sidecar): it says where ledgercheck looked, and how to write one.
func noConfiguration(cfg *config.Config) error {
	if cfg.Path != "" || cfg.Artifact.File == "" || cfg.Artifact.DSN != "" {
		return nil
	}
	if _, err := os.Lstat(cfg.Artifact.File); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fault.Input(fmt.Errorf("no %s in the working directory or above it up to the repository root (%s), and no %s here for the built-in default: write one with `ledgercheck init --artifact FILE --dim N`, or pass --config FILE", config.DefaultFile, input.RepoRoot("."), cfg.Artifact.File))
}
