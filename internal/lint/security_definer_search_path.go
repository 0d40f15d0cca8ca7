package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// SecurityDefinerSearchPath is the id of the rule below.
const SecurityDefinerSearchPath = "security-definer-search-path"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: SecurityDefinerSearchPath, Severity: finding.SevError,
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
	}),
	Check: func(p *Pass) {
		for _, def := range functionDefs(p) {
			if def.Func().SecurityDefiner && !pinned(p, def) {
				obj := def.Objects[0]
				p.Report(def.Pos, obj.String(), "SECURITY DEFINER %s %s has no SET search_path", obj.Kind, obj.Name)
			}
		}
	},
})
