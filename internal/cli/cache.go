package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

func newCacheCmd(g *globals) *cobra.Command {
	info := func(cmd *cobra.Command, _ []string) error {
		ci, err := scratch.ReadCacheInfo()
		if err != nil {
			return err
		}
		fmt.Fprintf(g.stdout, "%s\n%d entries, %s\n", ci.Dir, ci.Entries, humanBytes(ci.Bytes))
		return nil
	}
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "Show where the cache of initialized clusters is and how large it is",
		Long: `An embedded run keeps a copy of its cluster, initialized with the Supabase roles and a
template per dimension (the environment and the prerequisites), in the cache, and later runs with
the same inputs copy it instead of running initdb and building the templates again. An entry is
keyed by the PostgreSQL binaries (path and version), this ledgercheck build, the environment's and
the prerequisites' SQL (prerequisites.files included), the guard module and the server settings,
so any change to them builds a new one; it is saved before any migration runs, and each run
copies it into its own sandbox and sets fresh passwords before user SQL. --no-cache (on every
command that starts a server) neither reads nor writes it; --dsn servers are never cached.

The cache is $LEDGERCHECK_CACHE_DIR, else the user's cache directory (~/.cache/ledgercheck, or
$XDG_CACHE_HOME/ledgercheck), about 40 MB per entry; it keeps the last 6 entries. ` + "`ledgercheck cache`" + `
prints where it is, its number of entries and its size; ` + "`ledgercheck cache clean`" + ` removes it.`,
		Args: cobra.NoArgs,
		RunE: info,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "info",
		Short: "Print where the cache is, its number of entries and its size",
		Args:  cobra.NoArgs,
		RunE:  info,
	}, &cobra.Command{
		Use:   "clean",
		Short: "Remove every cache entry no running ledgercheck uses",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			n, err := scratch.CleanCache()
			g.logf("cache: removed %d entries", n)
			return err
		},
	})
	return cmd
}

// humanBytes renders a size as "41.2 MB".
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
