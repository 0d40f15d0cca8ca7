package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// DynamicSQL is the id of the rule below.
const DynamicSQL = "dynamic-sql"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: DynamicSQL, Severity: finding.SevWarning,
		Summary: "EXECUTE of SQL built at run time, which lint cannot see",
		Explain: `EXECUTE in a function body or DO block runs SQL that exists only at run time, so none of the
other rules can check it: an ALTER of public.thoughts built with format() passes every static
check. When the SQL is a string literal (or literals joined with ||) ledgercheck parses and checks
it like any other statement, and this rule stays quiet. Otherwise justify the statement with a
suppression, or write the SQL statically. (Of a format() template lint keeps one thing: the
objects it creates under names that do not depend on its arguments are the file's own, so that
a later GRANT on them is not a change to an object the file did not create.)

    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON public.agent_decision_ledger (step_index)', v_name);

becomes

    CREATE INDEX IF NOT EXISTS idx_agent_decision_ledger_step ON public.agent_decision_ledger (step_index);

or, when the dynamic SQL is needed,

    -- ledgercheck:ignore dynamic-sql index name is computed from the workspace
    DO $$ ... EXECUTE format(...) ... $$;

(squawk and splinter treat bodies as opaque; squawk#411, squawk#528.)`,
	}),
	Check: func(p *Pass) {
		for _, op := range p.Ops() {
			if op.Verb == pgsql.VerbExecute && op.Dynamic() != nil && !op.Dynamic().Literal {
				p.Report(op.Pos, "", "EXECUTE runs SQL built at run time%s; lint cannot check it: %s", where(op), abbreviate(op.Dynamic().SQL, 60))
			}
		}
	},
})

func abbreviate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}
