package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// UnusedSuppression is the id of the rule below.
const UnusedSuppression = "unused-suppression"

var ruleUnusedSuppression = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: UnusedSuppression, Severity: finding.SevError,
		Summary: "a ledgercheck:ignore comment suppresses nothing",
		Explain: `A suppression that matches no finding in its statement (an ignore-file one: in the file) is
stale: the statement was fixed or moved, and the exception would silently cover a future,
different problem. Remove it (from a comment naming several rules, remove the unused rule).

    -- ledgercheck:ignore destructive-statement cleanup of test rows   <- nothing to suppress
    DELETE FROM public.agent_decision_ledger WHERE workspace_id = 'test';

becomes

    DELETE FROM public.agent_decision_ledger WHERE workspace_id = 'test';

(squawk reports ignores of unknown rules but not unused ones.)`,
	}),
})
