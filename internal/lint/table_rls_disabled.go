package lint

import (
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// TableRLSDisabled is the id of the rule below.
const TableRLSDisabled = "table-rls-disabled"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: TableRLSDisabled, Severity: finding.SevError,
		Summary: "a new table without ALTER TABLE ... ENABLE ROW LEVEL SECURITY",
		Explain: `Every table a sidecar creates must have row level security enabled, as the agent-memory
tables do: a table in an exposed schema without RLS is readable and writable by any role with a
grant through the Data API. This is splinter's 0013 rls_disabled_in_public, checked before the
migration runs rather than after.

    CREATE TABLE IF NOT EXISTS public.agent_decision_edges (...);

becomes

    CREATE TABLE IF NOT EXISTS public.agent_decision_edges (...);
    ALTER TABLE public.agent_decision_edges ENABLE ROW LEVEL SECURITY;

(ENABLE ROW LEVEL SECURITY is idempotent, so it is safe on a rerun.)

When SQL built at run time enables row level security (a DO block looping over table names
with EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', ...)), lint cannot tell which
tables it reaches and stays quiet; the installed audit (ledgercheck lint --install, check)
reports every table it missed as rls-disabled-in-public.`,
	}),
	Check: func(p *Pass) {
		if dynamicRLS(p) {
			return // the installed audit (rls-disabled-in-public) sees which tables the SQL missed
		}
		alters := p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbAlter })
		for _, t := range newTables(p) {
			name := t.Objects[0].Name
			ok := false
			for _, op := range alters[name.Name] {
				if op.Verb != pgsql.VerbAlter || len(op.Objects) == 0 || !sameRelation(op.Objects[0], op.SearchPath, name) {
					continue
				}
				for _, c := range op.AlterCmds() {
					if c.Action == "EnableRowSecurity" {
						ok = true
					}
				}
			}
			if !ok {
				p.Report(t.Objects[0].Pos, t.Objects[0].String(), "table %s is created without ENABLE ROW LEVEL SECURITY", name)
			}
		}
	},
})

// dynamicRLS reports whether SQL built at run time in the file enables row level security.
func dynamicRLS(p *Pass) bool {
	for _, op := range p.Ops() {
		if d := op.Dynamic(); d != nil && !d.Literal && strings.Contains(strings.ToLower(d.SQL), "row level security") {
			return true
		}
	}
	return false
}
