package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// FunctionSearchPath is the id of the rule below.
const FunctionSearchPath = "function-search-path"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: FunctionSearchPath, Severity: finding.SevWarning,
		Summary: "a function without a pinned search_path",
		Explain: `A function without SET search_path resolves unqualified names through the caller's path, so
its behaviour depends on who calls it. splinter reports this as 0011 function_search_path_mutable
(WARN). SECURITY DEFINER functions are reported as errors by security-definer-search-path instead.

    CREATE OR REPLACE FUNCTION public.agent_decision_ledger_enroll() RETURNS trigger
      LANGUAGE plpgsql AS $$ ... $$;

becomes

    CREATE OR REPLACE FUNCTION public.agent_decision_ledger_enroll() RETURNS trigger
      LANGUAGE plpgsql SET search_path = public, extensions AS $$ ... $$;`,
	}),
	Check: func(p *Pass) {
		for _, def := range functionDefs(p) {
			if !def.Func().SecurityDefiner && !pinned(p, def) {
				obj := def.Objects[0]
				p.Report(def.Pos, obj.String(), "%s %s has no SET search_path (splinter 0011)", obj.Kind, obj.Name)
			}
		}
	},
})
