package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"ledgercheck/internal/fault"
	"ledgercheck/scratch"
)

func init() { register(70, newCleanupCmd) }

func newCleanupCmd(g *globals) *cobra.Command {
	var dsn string
	var olderThan time.Duration
	cmd := &cobra.Command{
		Use:   "cleanup --dsn URL",
		Short: "Drop scratch databases that killed runs left on a --dsn server",
		Long: `Every run drops the databases it created, also on error and on Ctrl-C or SIGTERM. A run
killed outright (SIGKILL, a cancelled CI job) cannot: cleanup drops what such runs left on the
server at --dsn.

Only databases named exactly like ledgercheck's own (ledgercheck_ followed by 12 hex digits, or a
ledgercheck_tplN_ template) and carrying a ledgercheck run mark as their comment are considered,
and of those only the ones whose run is gone: made by a process of this host that no longer exists,
or older than --older-than. The names dropped are printed on stdout, one per line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dsn == "" {
				return fault.Input(errors.New("cleanup needs --dsn URL (an embedded cluster removes itself)"))
			}
			dropped, err := scratch.Cleanup(cmd.Context(), dsn, olderThan)
			for _, name := range dropped {
				fmt.Fprintln(g.stdout, name)
			}
			g.logf("cleanup: dropped %d database(s)", len(dropped))
			return err
		},
	}
	cmd.Flags().StringVar(&dsn, "dsn", "", "the server to clean up")
	cmd.Flags().DurationVar(&olderThan, "older-than", time.Hour, "also drop marked databases older than this, whatever host made them")
	return cmd
}
