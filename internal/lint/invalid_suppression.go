package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// InvalidSuppression is the id of the rule below.
const InvalidSuppression = "invalid-suppression"

var ruleInvalidSuppression = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: InvalidSuppression, Severity: finding.SevError,
		Summary: "a ledgercheck:ignore comment is malformed",
		Explain: `A suppression is a comment on the line before a top-level statement:

    -- ledgercheck:ignore RULE-ID reason a reviewer can audit
    ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS ledger_step int;

It applies to that statement only. The rule id must exist (see ` + "`ledgercheck explain`" + `), the
reason is required, and the comment must sit directly above a statement (not inside one).
parse-error, too-complex and the suppression rules cannot be suppressed.`,
	}),
})
