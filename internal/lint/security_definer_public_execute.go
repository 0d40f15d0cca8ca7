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
