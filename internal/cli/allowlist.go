package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"ledgercheck/internal/allowlist"
	"ledgercheck/internal/fault"
)

func newAllowlistCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "allowlist",
		Short: "Work with allowlist.yaml, the reviewed differences between the artifact and a port",
		Long: `allowlist.yaml lists the differences between the two installs that a reviewer accepted, each with a
reason. See ` + "`ledgercheck allowlist suggest --help`" + ` and ` + "`ledgercheck allowlist check --help`" + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newAllowlistSuggestCmd(g), newAllowlistCheckCmd(g))
	return cmd
}

func newAllowlistSuggestCmd(g *globals) *cobra.Command {
	var (
		pf  parityFlags
		all bool
	)
	cmd := &cobra.Command{
		Use:   "suggest",
		Short: "Print candidate allowlist entries (reason: TODO) for the current differences",
		Long: `suggest runs the parity comparison of one port (same configuration and flags as
` + "`ledgercheck parity`" + `; with several configured ports, choose one with --only NAME) and prints an allowlist with one entry per semantic difference that the current allowlist does not
accept (with --all: per semantic difference), every reason "TODO". The gate rejects TODO, so the
entries only count once a person has reviewed each difference and written why it is accepted.
Short values are pinned as left/right, long ones (bodies, listings, probe results) by digest.

Exit 0 when it printed the suggestions; 2 and 3 as for parity.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := pf.loadConfig(cmd)
			if err != nil {
				return err
			}
			if len(cfg.Ports) != 1 {
				return fault.Input(fmt.Errorf("allowlist suggest compares one port with the artifact, and the configuration has %d (%s): pass --only NAME, or --port FILE --port-dim N", len(cfg.Ports), portNames(cfg)))
			}
			res, err := runGateParity(cmd, g, &pf, cfg)
			if err != nil {
				return err
			}
			rep := res.Parity[0]
			if rep == nil { // a variant does not install: nothing to compare
				for _, ph := range res.Report.Phases {
					for _, f := range ph.Findings {
						fmt.Fprintf(g.stderr, "ledgercheck: %s\n", oneLine(f.String()))
					}
				}
				return fault.ErrFindings
			}
			diffs := rep.Outcome.Unreviewed
			if all {
				diffs = rep.Differences
			}
			return allowlist.Suggest(g.stdout, diffs)
		},
	}
	addParityFlags(cmd, &pf)
	cmd.Flags().BoolVar(&all, "all", false, "suggest an entry for every semantic difference, accepted ones included")
	return cmd
}

func newAllowlistCheckCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE",
		Short: "Validate an allowlist file without a database (syntax, reasons, duplicates, patterns)",
		Long: `check decodes FILE strictly, as parity does: unknown keys, a version other than 1, entries that do not
pin their values, malformed digests or object_match patterns, empty or TODO reasons and
duplicates are errors printed as file:line (exit 2). Whether entries are stale needs the
installs: run ` + "`ledgercheck parity`" + `.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := allowlist.Load(args[0])
			if err != nil {
				return err
			}
			if f == nil {
				return fault.Input(fmt.Errorf("%s: empty allowlist", args[0]))
			}
			fmt.Fprintf(g.stdout, "%s: %d entries, valid\n", args[0], len(f.Entries))
			return nil
		},
	}
}
