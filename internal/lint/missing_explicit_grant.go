package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// MissingExplicitGrant is the id of the rule below.
const MissingExplicitGrant = "missing-explicit-grant"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: MissingExplicitGrant, Severity: finding.SevError,
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
	}),
	Check: func(p *Pass) {
		seen := map[ownKey]bool{}
		privs := p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbGrant || op.Verb == pgsql.VerbRevoke })
		for _, op := range p.Ops() {
			if op.Verb != pgsql.VerbCreate || len(op.Objects) == 0 {
				continue
			}
			obj := op.Objects[0]
			switch obj.Kind {
			case pgsql.KindFunction, pgsql.KindProcedure:
				if op.Func() != nil && op.Func().ReturnsTrigger {
					continue
				}
			case pgsql.KindView, pgsql.KindMatView:
			default:
				continue
			}
			if p.Own.Existing(obj) || seen[keyOf(obj)] {
				continue
			}
			seen[keyOf(obj)] = true
			if !hasPrivilegeStmt(privs[obj.Name.Name], obj) {
				p.Report(obj.Pos, obj.Label(), "%s has no explicit GRANT or REVOKE", obj.ShortLabel())
			}
		}
	},
})
