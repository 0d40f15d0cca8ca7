package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/didyoumean"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	_ "github.com/ledgercheck/ledgercheck/internal/gate" // registers every phase's rules
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

func newExplainCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "explain [RULE]",
		Short: "Explain a rule, or list all rules",
		Long: `explain prints a rule's page (docs/rules/RULE.md, carried in the binary, without its YAML front
matter): what it catches, why it matters, a failing and a corrected example, and its configuration. Every rule any phase
reports has one (lint, install, parity, probes, allowlist, rerun and upgrade). Without an
argument it lists every rule with its phase, default severity and summary.`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeRuleIDs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
				for _, r := range rule.All() {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Phase, r.Severity, r.Summary)
				}
				return tw.Flush()
			}
			r, ok := rule.Lookup(args[0])
			if !ok {
				if c := didyoumean.Closest(args[0], rule.IDs()); c != "" {
					return fault.Input(fmt.Errorf("unknown rule %q: did you mean %s?", args[0], c))
				}
				return fault.Input(fmt.Errorf("unknown rule %q; valid rules: %s", args[0], strings.Join(rule.IDs(), ", ")))
			}
			_, err := io.WriteString(g.stdout, strings.TrimLeft(r.Explain, "\n"))
			return err
		},
	}
}

// completeRuleIDs completes explain's RULE: every rule id, with its summary as the description.
func completeRuleIDs(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var ids []cobra.Completion
	for _, r := range rule.All() {
		if strings.HasPrefix(r.ID, toComplete) {
			ids = append(ids, cobra.CompletionWithDesc(r.ID, r.Summary))
		}
	}
	return ids, cobra.ShellCompDirectiveNoFileComp
}
