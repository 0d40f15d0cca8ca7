package cli

import (
	"fmt"
	"maps"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/didyoumean"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// stdinName is the name lint gives the migration it reads from standard input (the argument -).
const stdinName = "<stdin>"

// checkLintRules checks the rule ids given to flag: each must be one of lint's rules (the ones
// lint.severity sets); an unknown id is an input error with the closest id, as every other place
// that takes a rule id says it.
func checkLintRules(flag string, ids []string) error {
	for _, id := range ids {
		if _, ok := lint.Lookup(id); ok {
			continue
		}
		if r, ok := rule.Lookup(id); ok {
			return fault.Input(fmt.Errorf("%s %s: a rule of the %s phase, not lint's; only lint's rules can be turned off", flag, id, r.Phase))
		}
		if c := didyoumean.Closest(id, lint.IDs()); c != "" {
			return fault.Input(fmt.Errorf("%s %s: unknown rule %q: did you mean %s?", flag, id, id, c))
		}
		return fault.Input(fmt.Errorf("%s %s: unknown rule %q (`ledgercheck explain` lists the rules)", flag, id, id))
	}
	return nil
}

// excludeRules returns cfg with the rules ids turned off, as `lint.severity: {ID: off}` does.
func excludeRules(cfg lint.Config, ids []string) lint.Config {
	if len(ids) == 0 {
		return cfg
	}
	sev := maps.Clone(cfg.Severity)
	if sev == nil {
		sev = map[string]string{}
	}
	for _, id := range ids {
		sev[id] = "off"
	}
	cfg.Severity = sev
	return cfg
}

// completeLintRuleIDs completes a lint rule id (--exclude), with its summary as the description.
func completeLintRuleIDs(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var ids []cobra.Completion
	for _, id := range lint.IDs() {
		if strings.HasPrefix(id, toComplete) {
			r, _ := rule.Lookup(id)
			ids = append(ids, cobra.CompletionWithDesc(id, r.Summary))
		}
	}
	return ids, cobra.ShellCompDirectiveNoFileComp
}
