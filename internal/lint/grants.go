package lint

import (
	"slices"
	"strings"

	"ledgercheck/internal/finding"
	"ledgercheck/internal/pgsql"
)

var apiRoles = []string{"anon", "authenticated", "public"}

var _ = register(&Rule{
	ID: "grant-to-api-role", Severity: finding.SevError,
	Summary: "a GRANT to anon, authenticated or PUBLIC not allowed by configuration",
	Explain: `Sidecar objects are reached through service_role. A grant to anon, authenticated or PUBLIC
exposes the object to every Data API client, which the agent-memory pattern never does ("No anon
or authenticated grants"). splinter infers the same exposure after the fact (0013, 0026, 0027).

    GRANT SELECT ON public.agent_recall_policy_stats TO anon, service_role;

becomes

    GRANT SELECT ON public.agent_recall_policy_stats TO service_role;

If a role really needs access, list it under lint.allowed_grantees in ledgercheck.yaml.`,
	Check: func(p *Pass) {
		for _, op := range p.Ops() {
			if op.Verb != pgsql.VerbGrant || op.Grant == nil || op.Grant.Role {
				continue
			}
			for _, g := range op.Grant.Grantees {
				if slices.Contains(apiRoles, g) && !slices.Contains(p.Config.AllowedGrantees, g) {
					obj := ""
					if len(op.Objects) > 0 {
						obj = op.Objects[0].String()
					}
					who := g
					if g == "public" {
						who = "PUBLIC"
					}
					p.Report(op.At(), obj, "%s %s to %s%s; sidecar objects are granted to service_role only (allow it in lint.allowed_grantees if intended)", op.Tag, strings.Join(op.Grant.Privileges, ", "), who, where(op))
				}
			}
		}
	},
})

var _ = register(&Rule{
	ID: "missing-explicit-grant", Severity: finding.SevError,
	Summary: "a new function or view without an explicit GRANT or REVOKE",
	Explain: `Each function and view a sidecar creates states its privileges explicitly, as the
agent-memory schema does for agent_memory_hash_text. PostgreSQL grants EXECUTE on new functions to
PUBLIC, and Supabase's default privileges differ between projects, so an object without an explicit
grant is reachable by whoever the defaults say. Trigger functions are exempt: they are not called
directly.

    CREATE OR REPLACE FUNCTION public.touch_decision_recall(p_memory_ids uuid[], p_used boolean DEFAULT false)
      RETURNS integer LANGUAGE plpgsql SET search_path = public AS $$ ... $$;

becomes

    CREATE OR REPLACE FUNCTION public.touch_decision_recall(...) ... ;
    REVOKE EXECUTE ON FUNCTION public.touch_decision_recall(uuid[], boolean) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION public.touch_decision_recall(uuid[], boolean) TO service_role;

(splinter 0028/0029 flag the exposure of SECURITY DEFINER functions after the fact.)`,
	Check: func(p *Pass) {
		seen := map[pgsql.Name]bool{}
		privs := p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbGrant || op.Verb == pgsql.VerbRevoke })
		for _, op := range p.Ops() {
			if op.Verb != pgsql.VerbCreate || len(op.Objects) == 0 {
				continue
			}
			obj := op.Objects[0]
			switch obj.Kind {
			case pgsql.KindFunction, pgsql.KindProcedure:
				if op.Func != nil && op.Func.ReturnsTrigger {
					continue
				}
			case pgsql.KindView, pgsql.KindMatView:
			default:
				continue
			}
			if p.Own.Existing(obj) || seen[obj.Name] {
				continue
			}
			seen[obj.Name] = true
			if !hasPrivilegeStmt(privs[obj.Name.Name], obj) {
				p.Report(obj.Pos, obj.String(), "%s %s has no explicit GRANT or REVOKE", obj.Kind, obj.Name)
			}
		}
	},
})

// hasPrivilegeStmt reports whether one of ops (the GRANTs and REVOKEs naming obj) is on obj.
func hasPrivilegeStmt(ops []*pgsql.Op, obj pgsql.Object) bool {
	fn := obj.Kind == pgsql.KindFunction || obj.Kind == pgsql.KindProcedure
	for _, op := range ops {
		if (op.Verb != pgsql.VerbGrant && op.Verb != pgsql.VerbRevoke) || op.Grant == nil || op.Grant.Role || op.Grant.Defaults {
			continue
		}
		for _, o := range op.Objects {
			ofn := o.Kind == pgsql.KindFunction || o.Kind == pgsql.KindProcedure
			if fn != ofn {
				continue
			}
			if sameRelation(o, op.SearchPath, obj.Name) {
				return true
			}
		}
	}
	return false
}
