package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

func newCleanupCmd(g *globals) *cobra.Command {
	var dsn string
	var olderThan time.Duration
	cmd := &cobra.Command{
		Use:   "cleanup --dsn URL",
		Short: "Drop what killed runs left on a --dsn server",
		Long: `Every run drops what it created on a --dsn server, also on error and on Ctrl-C or SIGTERM,
and drops what earlier runs that were killed outright (SIGKILL, a cancelled CI job) left there
before it starts. cleanup does the same without starting a run.

A run holds an advisory lock on the server for its whole life and creates nothing before it
holds it; the server releases a session's locks when the session ends, however it ends. So what
a run left is dropped only when its run is provably gone: its install role (ledgercheck_ and 12
hex digits, marked with its run id when it was created), its databases (named after it, or made
after it and owned by its roles; prepared transactions in them are rolled back and IS_TEMPLATE
and connection settings undone first), the roles its SQL created that are still tied to its
install role (memberships, ADMIN OPTION, grants they made) and the Supabase API roles it created
(marked too). Anything that existed before the run is never dropped: a database the run's SQL
took over (REASSIGN OWNED) is named, with the one statement that gives it back, and cleanup exits
3 until a superuser has run it. A run killed a moment ago may hold its lock for a second more,
while the server notices; cleanup then leaves it, and a second cleanup drops it.

The DSN's role must be a superuser, as for runs. --older-than (0 or more) spares what runs that
started less than that long ago left. What is dropped is printed on stdout, one per line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dsn == "" {
				return fault.Input(errors.New("cleanup needs --dsn URL (an embedded cluster removes itself)"))
			}
			dropped, err := scratch.Cleanup(cmd.Context(), dsn, olderThan)
			for _, name := range dropped {
				fmt.Fprintln(g.stdout, name)
			}
			if err != nil {
				return err
			}
			g.logf("cleanup: dropped %d databases and roles", len(dropped))
			return nil
		},
	}
	cmd.Flags().StringVar(&dsn, "dsn", "", "the server to clean up")
	cmd.Flags().DurationVar(&olderThan, "older-than", 0, "spare what runs that started less than this long ago left (0 or more)")
	return cmd
}
