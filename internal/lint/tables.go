package lint

import (
	"slices"

	"ledgercheck/internal/finding"
	"ledgercheck/internal/pgsql"
)

// newTables returns the CREATE TABLE ops of tables the file owns.
func newTables(p *Pass) []*pgsql.Op {
	var out []*pgsql.Op
	seen := map[pgsql.Name]bool{}
	for _, op := range p.Ops() {
		if op.Verb != pgsql.VerbCreate || len(op.Objects) == 0 || op.Objects[0].Kind != pgsql.KindTable {
			continue
		}
		obj := op.Objects[0]
		if p.Own.Existing(obj) || seen[obj.Name] {
			continue
		}
		seen[obj.Name] = true
		out = append(out, op)
	}
	return out
}

// sameRelation reports whether obj, seen in an op with search path path, names the relation n.
func sameRelation(obj pgsql.Object, path []string, n pgsql.Name) bool {
	if obj.Name.Name != n.Name {
		return false
	}
	if obj.Qualified || obj.Name.Schema == n.Schema {
		return obj.Name.Schema == n.Schema
	}
	return slices.Contains(path, n.Schema)
}

func sameTable(t pgsql.Name, qualified bool, path []string, n pgsql.Name) bool {
	return sameRelation(pgsql.Object{Kind: pgsql.KindTable, Name: t, Qualified: qualified}, path, n)
}

var _ = register(&Rule{
	ID: "table-rls-disabled", Severity: finding.SevError,
	Summary: "a new table without ALTER TABLE ... ENABLE ROW LEVEL SECURITY",
	Explain: `Every table a sidecar creates must have row level security enabled, as the agent-memory
tables do: a table in an exposed schema without RLS is readable and writable by any role with a
grant through the Data API. This is splinter's 0013 rls_disabled_in_public, checked before the
migration runs rather than after.

    CREATE TABLE IF NOT EXISTS public.agent_decision_edges (...);

becomes

    CREATE TABLE IF NOT EXISTS public.agent_decision_edges (...);
    ALTER TABLE public.agent_decision_edges ENABLE ROW LEVEL SECURITY;

(ENABLE ROW LEVEL SECURITY is idempotent, so it is safe on a rerun.)`,
	Check: func(p *Pass) {
		alters := p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbAlter })
		for _, t := range newTables(p) {
			name := t.Objects[0].Name
			ok := false
			for _, op := range alters[name.Name] {
				if op.Verb != pgsql.VerbAlter || len(op.Objects) == 0 || !sameRelation(op.Objects[0], op.SearchPath, name) {
					continue
				}
				for _, c := range op.AlterCmds {
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

var _ = register(&Rule{
	ID: "table-no-service-role-policy", Severity: finding.SevError,
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
      FOR ALL TO service_role USING (true) WITH CHECK (true);`,
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
				if sameTable(obj.Table, obj.Qualified, op.SearchPath, name) && slices.Contains(op.Roles, "service_role") {
					ok = true
				}
			}
			if !ok {
				p.Report(t.Objects[0].Pos, t.Objects[0].String(), "table %s has no policy TO service_role (service_role bypasses RLS; the policy states the intended access, splinter 0008)", name)
			}
		}
	},
})

var _ = register(&Rule{
	ID: "table-no-service-role-grant", Severity: finding.SevError,
	Summary: "a new table without an explicit GRANT to service_role",
	Explain: `Supabase no longer grants table privileges to service_role by default on new tables (Open
Brain's getting-started guide calls the GRANT step mandatory; CONTRIBUTING asks every contribution
that creates tables to include it). Without it the Data API cannot reach the table.

    CREATE TABLE IF NOT EXISTS public.agent_decision_ledger (...);

becomes

    CREATE TABLE IF NOT EXISTS public.agent_decision_ledger (...);
    GRANT SELECT, INSERT, UPDATE, DELETE ON public.agent_decision_ledger TO service_role;`,
	Check: func(p *Pass) {
		grants := p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbGrant })
		for _, t := range newTables(p) {
			name := t.Objects[0].Name
			if !granted(p, grants, name, "service_role") {
				p.Report(t.Objects[0].Pos, t.Objects[0].String(), "table %s has no GRANT ... TO service_role", name)
			}
		}
	},
})

// granted reports whether the file grants something on relation n to role.
func granted(p *Pass, grants map[string][]*pgsql.Op, n pgsql.Name, role string) bool {
	for _, op := range append(grants[n.Name], grants[n.Schema]...) {
		if op.Verb != pgsql.VerbGrant || op.Grant == nil || op.Grant.Defaults || op.Grant.Role || !slices.Contains(op.Grant.Grantees, role) {
			continue
		}
		for _, o := range op.Objects {
			if op.Grant.AllInSchema && o.Name.Name == n.Schema {
				return true
			}
			if sameRelation(o, op.SearchPath, n) {
				return true
			}
		}
	}
	return false
}
