package lint

import (
	"ledgercheck/internal/finding"
	"ledgercheck/internal/pgsql"
	"slices"
)

// SecurityDefinerPublicExecute is the id of the rule below.
const SecurityDefinerPublicExecute = "security-definer-public-execute"

var _ = register(&Rule{
	ID: SecurityDefinerPublicExecute, Severity: finding.SevError,
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
			if !def.Func().SecurityDefiner {
				continue
			}
			obj := def.Objects[0]
			revoked := false
			for _, op := range p.Ops() {
				if op.Verb != pgsql.VerbRevoke || op.Grant() == nil || !slices.Contains(op.Grant().Grantees, "public") {
					continue
				}
				if !slices.Contains(op.Grant().Privileges, "execute") && !slices.Contains(op.Grant().Privileges, "all") {
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
