package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"ledgercheck/internal/config"
	"ledgercheck/internal/crosscheck"
	"ledgercheck/internal/fault"
	"ledgercheck/internal/finding"
	"ledgercheck/internal/gate"
	"ledgercheck/internal/input"
	"ledgercheck/internal/install"
	"ledgercheck/internal/lint"
	"ledgercheck/internal/pgsql"
	"ledgercheck/internal/report"
	"ledgercheck/internal/scratch"
	"ledgercheck/internal/sqlscript"
	"ledgercheck/introspect"
)

func init() { register(20, newLintCmd) }

func newLintCmd(g *globals) *cobra.Command {
	var (
		dim        int
		out        = newOutputFlags()
		configPath string
		install    bool
		sf         serverFlags
	)
	cmd := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Check migration files against the sidecar rules, without a database",
		Long: `lint parses each migration with PostgreSQL's parser, opens function bodies and DO blocks,
and reports every statement that breaks the sidecar contract: changes to objects the file did not
create, new tables without RLS, service_role policy or grants, a missing trailing
NOTIFY pgrst, 'reload schema', statements that fail on a second run, destructive statements, and
more. ` + "`ledgercheck explain`" + ` lists the rules; ` + "`ledgercheck explain RULE`" + ` explains one.

With --install, each file is also installed into a scratch database with the Open Brain
prerequisites (at --dim, default 1536), and the catalog before and after is compared with what the
statements visibly do: a change to a pre-existing object that only SQL built at run time explains
is reported as undeclared-change.

The text format prints one finding per line, file:line:col: severity: message [rule] (columns
count characters), the form editors and pre-commit hooks read; json, sarif, github and html are
check's report (one phase per file; json is the document of docs/json-schema.md).
Exit 1 if any finding is an error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			if dim < 0 {
				return fault.Input(fmt.Errorf("--dim %d: want a positive dimension", dim))
			}
			conf, err := loadConfig(configPath)
			if err != nil {
				return err
			}
			cfg := conf.Lint
			sf.applyLimits(cmd.Flags(), conf.Limits)
			// Every file is checked before the first is linted, or a server started.
			for _, path := range args {
				if err := input.Check(path, input.Migration); err != nil {
					return fault.Input(err)
				}
			}
			var srv *scratch.Server
			if install {
				var err error
				if srv, err = g.startServer(cmd.Context(), &sf); err != nil {
					return err
				}
				defer srv.Close()
			}
			rep := lintReport()
			for _, path := range args {
				src, err := input.ReadFile(path, input.Migration)
				if err != nil {
					return fault.Input(err)
				}
				g.logf("linting %s", path)
				ph := report.PhaseResult{Phase: finding.PhaseLint, Name: "lint " + path, File: path,
					Findings: lint.Source(path, src, cfg, lint.Options{Dim: dim})}
				if srv != nil {
					fs, err := installCrossCheck(cmd, srv, path, src, dim, cfg)
					if err != nil {
						return err
					}
					ph.Findings = append(ph.Findings, fs...)
				}
				rep.Phases = append(rep.Phases, ph)
			}
			rep.Finish()
			return out.render(g, rep)
		},
	}
	out.compactText = true
	cmd.Flags().IntVar(&dim, "dim", 0, "require every vector(N), halfvec(N) and sparsevec(N) to have this dimension")
	out.add(cmd)
	cmd.Flags().StringVar(&configPath, "config", "", "gate configuration whose lint section (and limits) apply (default: "+config.DefaultFile+" in the working directory if there is one, else the built-in policy for the decision ledger)")
	cmd.Flags().BoolVar(&install, "install", false, "also install each file into a scratch database and cross-check the catalog changes (needs Postgres)")
	addServerFlags(cmd, &sf)
	return cmd
}

// installCrossCheck installs src over the prerequisites and cross-checks its footprint. A file
// that does not parse is left to the parse-error finding; one that fails to install is a finding.
func installCrossCheck(cmd *cobra.Command, srv *scratch.Server, path string, src []byte, dim int, cfg lint.Config) ([]finding.Finding, error) {
	f, err := pgsql.Parse(path, src)
	if err != nil {
		return nil, nil
	}
	if dim == 0 {
		dim = 1536
	}
	sf, err := sqlscript.Parse(path, src, dim)
	if err != nil {
		if fd, ok := install.Finding(err); ok {
			return []finding.Finding{fd}, nil
		}
		return nil, err
	}
	ctx := cmd.Context()
	db, err := srv.NewDatabase(ctx, dim)
	if err != nil {
		return nil, err
	}
	defer db.Drop(context.WithoutCancel(ctx))
	fp, _, err := install.Footprint(ctx, db, sqlscript.Script(sf), nil, introspect.Options{})
	var se *scratch.ScriptError
	if errors.As(err, &se) {
		return []finding.Finding{{Phase: finding.PhaseInstall, Rule: gate.RuleInstallFailed, Severity: finding.SevError, Pos: se.Pos,
			Message: "the migration does not install over the prerequisites: " + se.Message()}}, nil
	}
	if err != nil {
		return nil, err
	}
	return crosscheck.Check(f, cfg, fp), nil
}

// lintReport is the report lint fills with one phase per file. Every format writes it; text as
// lint's compact form, one finding per line.
func lintReport() *report.Report {
	return &report.Report{Tool: "ledgercheck", Version: Version, Root: "."}
}
