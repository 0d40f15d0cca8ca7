package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
	"slices"
)

// TableNoServiceRolePolicy is the id of the rule below.
const TableNoServiceRolePolicy = "table-no-service-role-policy"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: TableNoServiceRolePolicy, Severity: finding.SevError,
		Summary: "a new table without a policy for service_role",
		Explain: `Each new table carries a policy for service_role, as every agent-memory table does
("<table>_service_role_all ... FOR ALL TO service_role USING (true) WITH CHECK (true)").
service_role has BYPASSRLS on Supabase, so the policy does not grant it anything; it documents the
intended access and keeps splinter's 0008 rls_enabled_no_policy quiet.

    ALTER TABLE public.agent_decision_edges ENABLE ROW LEVEL SECURITY;

becomes

    ALTER TABLE public.agent_decision_edges ENABLE ROW LEVEL SECURITY;
    DROP POLICY IF EXISTS agent_decision_edges_service_role_all ON public.agent_decision_edges;
    CREATE POLICY agent_decision_edges_service_role_all ON public.agent_decision_edges
      FOR ALL TO service_role USING (true) WITH CHECK (true);

The core thoughts pattern counts too: a policy for PUBLIC whose USING or WITH CHECK tests
auth.role() = 'service_role' ("Service role full access").`,
	}),
	Check: func(p *Pass) {
		policies := p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbCreate && op.Object().Kind == pgsql.KindPolicy })
		for _, t := range newTables(p) {
			name := t.Objects[0].Name
			ok := false
			for _, op := range policies[name.Name] {
				if op.Verb != pgsql.VerbCreate || op.Object().Kind != pgsql.KindPolicy {
					continue
				}
				obj := op.Object()
				roles := op.Roles()
				forAll := len(roles) == 0 || slices.Contains(roles, "public")
				if sameTable(obj.Table, obj.Qualified, op.SearchPath, name) && (slices.Contains(roles, "service_role") || forAll && op.Policy().ServiceRoleClaim) {
					ok = true
				}
			}
			if !ok {
				p.Report(t.Objects[0].Pos, t.Objects[0].String(), "table %s has no policy TO service_role (service_role bypasses RLS; the policy states the intended access, splinter 0008)", name)
			}
		}
	},
})
