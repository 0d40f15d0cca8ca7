package lint

import (
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// GrantLeavesPublic is the id of the rule below.
const GrantLeavesPublic = "grant-leaves-public"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: GrantLeavesPublic, Severity: finding.SevWarning,
	}),
	Check: func(p *Pass) {
		for _, po := range p.privileges() {
			fn := po.def.Func()
			if !isFunction(po.obj) || fn == nil || fn.ReturnsTrigger || len(po.grants) == 0 || !po.acl["public"]["execute"] {
				continue
			}
			g := po.grants[0]
			if opensToEveryone(g.Grant().Grantees) {
				continue // a grant to anon (or PUBLIC) means to open the function, not to restrict it
			}
			p.Report(g.At(), po.obj.Label(), "%s grants EXECUTE on %s to %s but PUBLIC keeps its default EXECUTE; REVOKE EXECUTE ... FROM PUBLIC, anon, authenticated first",
				g.Tag, po.obj.ShortLabel(), roleList(g.Grant().Grantees))
		}
	},
})

// opensToEveryone reports whether a grant's grantees include anon or PUBLIC: whoever grants to
// them means the function for every caller, so PUBLIC's default EXECUTE adds nothing.
func opensToEveryone(grantees []string) bool {
	for _, g := range grantees {
		if g == "anon" || strings.EqualFold(g, "public") {
			return true
		}
	}
	return false
}
