package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"ledgercheck/internal/fault"
	"ledgercheck/lint"
	"ledgercheck/report"
)

func init() { register(20, newLintCmd) }

func newLintCmd(g *globals) *cobra.Command {
	var (
		dim        int
		format     string
		configPath string
	)
	cmd := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Check migration files against the sidecar rules, without a database",
		Long: `lint parses each migration with PostgreSQL's parser, opens function bodies and DO blocks,
and reports every statement that breaks the sidecar contract: changes to objects the file did not
create, new tables without RLS, service_role policy or grants, a missing trailing
NOTIFY pgrst, 'reload schema', statements that fail on a second run, destructive statements, and
more. ` + "`ledgercheck explain`" + ` lists the rules; ` + "`ledgercheck explain RULE`" + ` explains one.

Findings are printed as file:line:col: severity: message [rule] (columns count characters).
Exit 1 if any finding is an error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return fault.Input(fmt.Errorf("--format %q: want text or json", format))
			}
			if dim < 0 {
				return fault.Input(fmt.Errorf("--dim %d: want a positive dimension", dim))
			}
			cfg := lint.DefaultConfig()
			if configPath != "" {
				f, err := os.Open(configPath)
				if err != nil {
					return fault.Input(fmt.Errorf("reading --config: %w", err))
				}
				cfg, err = lint.LoadConfig(f)
				f.Close()
				if err != nil {
					return fault.Input(fmt.Errorf("%s: %w", configPath, err))
				}
			}
			var all []report.Finding
			for _, path := range args {
				src, err := readFile(path)
				if err != nil {
					return fault.Input(err)
				}
				g.logf("linting %s", path)
				all = append(all, lint.Source(path, src, cfg, lint.Options{Dim: dim})...)
			}
			var err error
			if format == "json" {
				err = report.WriteJSON(g.stdout, all)
			} else {
				err = report.WriteText(g.stdout, all)
			}
			if err != nil {
				return err
			}
			if lint.HasErrors(all) {
				return fault.ErrFindings
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&dim, "dim", 0, "require every vector(N), halfvec(N) and sparsevec(N) to have this dimension")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&configPath, "config", "", "YAML file with the lint configuration (default: the built-in one for the decision ledger)")
	return cmd
}

// readFile reads a migration, with a one-line error naming the path.
func readFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such file", path)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	case st.IsDir():
		return nil, fmt.Errorf("%s: is a directory, not a migration file", path)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return src, nil
}
