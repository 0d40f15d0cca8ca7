package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// SecurityDefinerPublicExecute is the id of the rule below.
const SecurityDefinerPublicExecute = "security-definer-public-execute"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: SecurityDefinerPublicExecute, Severity: finding.SevError,
		Summary: "a SECURITY DEFINER function that anon or authenticated can execute after the file",
		Explain: `A SECURITY DEFINER function runs with its owner's rights, so whoever may EXECUTE it through
the Data API (/rest/v1/rpc/NAME) bypasses row level security. lint computes who can execute each
function the file creates once the file has run: PostgreSQL grants EXECUTE on every new function
to PUBLIC, and Supabase's default privileges in public also grant it to anon, authenticated and
service_role directly (the model is read from the environment ledgercheck installs into), and
then the file's own ALTER DEFAULT PRIVILEGES, GRANTs and REVOKEs apply in file order, functions
identified by name and argument types. REVOKE ... FROM PUBLIC alone therefore leaves anon and
authenticated their direct grants. This is splinter's 0028 anon_security_definer_function_executable
and 0029 authenticated_security_definer_function_executable, checked before the migration runs;
the installed audit asks the catalog the same question and drops its duplicate.

Trigger and event-trigger functions are exempt: they cannot be called directly. A function that
an API role is meant to call is a reviewed exception in ledgercheck.yaml:

    lint:
      definer_callers:
        - function: public.search_public_notes(text)
          roles: [anon]
          reason: the public search page; the function returns published notes only

    CREATE OR REPLACE FUNCTION public.ledger_admin() RETURNS void
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$ ... $$;
    REVOKE EXECUTE ON FUNCTION public.ledger_admin() FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION public.ledger_admin() TO service_role;

becomes

    CREATE OR REPLACE FUNCTION public.ledger_admin() ... ;
    REVOKE EXECUTE ON FUNCTION public.ledger_admin() FROM PUBLIC, anon, authenticated;
    GRANT EXECUTE ON FUNCTION public.ledger_admin() TO service_role;`,
	}),
	Check: func(p *Pass) {
		for _, po := range p.privileges() {
			fn := po.def.Func()
			if !isFunction(po.obj) || fn == nil || !fn.SecurityDefiner || fn.ReturnsTrigger {
				continue
			}
			var roles []string
			for _, r := range po.apiHolders("execute") {
				if !p.Config.callerAllowed(po.obj, r) {
					roles = append(roles, r)
				}
			}
			if len(roles) == 0 {
				continue
			}
			p.Report(po.def.Pos, po.obj.Label(), "SECURITY DEFINER %s stays executable by %s after this file; REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC, anon, authenticated",
				po.obj.ShortLabel(), roleList(roles), po.obj.ShortSignature())
		}
	},
})
