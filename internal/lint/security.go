package lint

import (
	"slices"

	"ledgercheck/internal/finding"
	"ledgercheck/internal/pgsql"
)

// functionDefs returns the CREATE FUNCTION and CREATE PROCEDURE ops of the file.
func functionDefs(p *Pass) []*pgsql.Op {
	var out []*pgsql.Op
	for _, op := range p.Ops() {
		if op.Verb == pgsql.VerbCreate && op.Func != nil && len(op.Objects) > 0 {
			out = append(out, op)
		}
	}
	return out
}

// pinned reports whether the function created by def has a pinned search_path, in its
// definition or by a later ALTER FUNCTION ... SET search_path.
func pinned(p *Pass, def *pgsql.Op) bool {
	if def.Func.PinnedPath {
		return true
	}
	if p.alterFns == nil {
		p.alterFns = p.byName(func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbAlter && op.Func != nil })
	}
	for _, op := range p.alterFns[def.Objects[0].Name.Name] {
		if op.Verb == pgsql.VerbAlter && op.Func != nil && op.Func.PinnedPath && len(op.Objects) > 0 && sameRelation(op.Objects[0], op.SearchPath, def.Objects[0].Name) {
			return true
		}
	}
	return false
}

var _ = register(&Rule{
	ID: "security-definer-search-path", Severity: finding.SevError,
	Summary: "a SECURITY DEFINER function without a pinned search_path",
	Explain: `A SECURITY DEFINER function runs with its owner's rights. Without a pinned search_path, a
caller can put a schema of their own first on the path and have the function call their objects
with those rights. Pin it (any fixed path; '' with fully qualified names is strictest). This is
splinter's 0011 function_search_path_mutable, made an error for definer functions.

    CREATE OR REPLACE FUNCTION public.ledger_admin() RETURNS void
      LANGUAGE plpgsql SECURITY DEFINER AS $$ ... $$;

becomes

    CREATE OR REPLACE FUNCTION public.ledger_admin() RETURNS void
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$ ... $$;`,
	Check: func(p *Pass) {
		for _, def := range functionDefs(p) {
			if def.Func.SecurityDefiner && !pinned(p, def) {
				obj := def.Objects[0]
				p.Report(def.Pos, obj.String(), "SECURITY DEFINER %s %s has no SET search_path", obj.Kind, obj.Name)
			}
		}
	},
})

var _ = register(&Rule{
	ID: "security-definer-public-execute", Severity: finding.SevError,
	Summary: "a SECURITY DEFINER function without REVOKE EXECUTE ... FROM PUBLIC",
	Explain: `PostgreSQL grants EXECUTE on every new function to PUBLIC, so a SECURITY DEFINER function is
callable with its owner's rights by anon and authenticated through the Data API unless the file
revokes it. This is splinter's 0028 anon_security_definer_function_executable and 0029
authenticated_security_definer_function_executable, checked before the migration runs.

    CREATE OR REPLACE FUNCTION public.ledger_admin() RETURNS void
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$ ... $$;
    GRANT EXECUTE ON FUNCTION public.ledger_admin() TO service_role;

becomes

    CREATE OR REPLACE FUNCTION public.ledger_admin() ... ;
    REVOKE EXECUTE ON FUNCTION public.ledger_admin() FROM PUBLIC, anon, authenticated;
    GRANT EXECUTE ON FUNCTION public.ledger_admin() TO service_role;`,
	Check: func(p *Pass) {
		for _, def := range functionDefs(p) {
			if !def.Func.SecurityDefiner {
				continue
			}
			obj := def.Objects[0]
			revoked := false
			for _, op := range p.Ops() {
				if op.Verb != pgsql.VerbRevoke || op.Grant == nil || !slices.Contains(op.Grant.Grantees, "public") {
					continue
				}
				if !slices.Contains(op.Grant.Privileges, "execute") && !slices.Contains(op.Grant.Privileges, "all") {
					continue
				}
				for _, o := range op.Objects {
					if (o.Kind == pgsql.KindFunction || o.Kind == pgsql.KindProcedure) && sameRelation(o, op.SearchPath, obj.Name) {
						revoked = true
					}
				}
			}
			if !revoked {
				p.Report(def.Pos, obj.String(), "SECURITY DEFINER %s %s is executable by PUBLIC; REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC", obj.Kind, obj.Name, obj.Name)
			}
		}
	},
})

var _ = register(&Rule{
	ID: "function-search-path", Severity: finding.SevWarning,
	Summary: "a function without a pinned search_path",
	Explain: `A function without SET search_path resolves unqualified names through the caller's path, so
its behaviour depends on who calls it. splinter reports this as 0011 function_search_path_mutable
(WARN). SECURITY DEFINER functions are reported as errors by security-definer-search-path instead.

    CREATE OR REPLACE FUNCTION public.agent_decision_ledger_enroll() RETURNS trigger
      LANGUAGE plpgsql AS $$ ... $$;

becomes

    CREATE OR REPLACE FUNCTION public.agent_decision_ledger_enroll() RETURNS trigger
      LANGUAGE plpgsql SET search_path = public, extensions AS $$ ... $$;`,
	Check: func(p *Pass) {
		for _, def := range functionDefs(p) {
			if !def.Func.SecurityDefiner && !pinned(p, def) {
				obj := def.Objects[0]
				p.Report(def.Pos, obj.String(), "%s %s has no SET search_path (splinter 0011)", obj.Kind, obj.Name)
			}
		}
	},
})
