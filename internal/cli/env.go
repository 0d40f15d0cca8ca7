package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

func newEnvCmd(g *globals) *cobra.Command {
	env := &cobra.Command{
		Use:   "env",
		Short: "Manage scratch databases that look like Supabase with the Open Brain prerequisites",
	}
	var sf serverFlags
	var dim int
	up := &cobra.Command{
		Use:   "up",
		Short: "Boot a scratch database and wait; Ctrl-C (or SIGTERM) removes it",
		Long: `Boot a scratch database with the Supabase environment (roles, auth schema, extensions,
pgvector) and the Open Brain prerequisites (thoughts, upsert_thought, match_thoughts, the
agent-memory schema) at vector dimension --dim, on PostgreSQL 15 or, with --pg 17, 17, print its
connection URI as the first line of stdout, and wait. On SIGINT or SIGTERM the database (and the embedded cluster) is removed and the
command exits 0.

  ledgercheck env up --dim 1024 > /tmp/scratch.uri &   # or in another terminal
  until [ -s /tmp/scratch.uri ] || ! kill -0 $! 2>/dev/null; do sleep 0.2; done
  psql "$(head -n1 /tmp/scratch.uri)"                  # postgresql://postgres@/ledgercheck_...?host=...
  kill %1                                              # removes the database`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			srv, err := g.startServer(ctx, &sf, []scratch.TemplateSpec{{Dim: dim}})
			if err != nil {
				return err
			}
			defer srv.Close()
			db, err := srv.NewDatabase(ctx, dim)
			if err != nil {
				return err
			}
			// A person's database: nothing ledgercheck decides depends on its settings.
			srv.ReleaseHold()
			if _, err := fmt.Fprintln(g.stdout, db.URI()); err != nil {
				return err
			}
			if f, ok := g.stdout.(interface{ Sync() error }); ok {
				_ = f.Sync()
			}
			g.logf("env: %s at dimension %d is up; Ctrl-C to remove it", db.Name, dim)
			<-ctx.Done()
			g.logf("env: removing %s", db.Name)
			return nil
		},
	}
	up.Flags().IntVar(&dim, "dim", scratch.DefaultDim, "vector dimension of the prerequisites (thoughts.embedding)")
	addServerFlags(up, &sf)
	env.AddCommand(up)
	return env
}
