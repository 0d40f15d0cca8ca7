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

It applies to that statement only; several rules are separated by commas
(-- ledgercheck:ignore not-idempotent, destructive-statement reason). A comment anywhere in the
file of the form

    -- ledgercheck:ignore-file RULE-ID reason

applies to the whole file, for rules that are not about security (not-idempotent,
destructive-statement, missing-notify-reload, ...): a security rule (RLS, grants, SECURITY
DEFINER, search_path, the installed audit's) is suppressed statement by statement, so that a
reviewer sees every exception. The rule id must exist (see ` + "`ledgercheck explain`" + `; a misspelt one
gets a suggestion), the reason is required, the statement form must sit directly above a
statement (not inside one), and any other form (ledgercheck:ignore-next, ...) is an error.
parse-error, too-complex and the suppression rules cannot be suppressed.`,
	}),
})
