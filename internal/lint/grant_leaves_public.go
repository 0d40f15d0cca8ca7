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
		Summary: "EXECUTE granted on a function to a role while PUBLIC keeps its default EXECUTE",
		Explain: `PostgreSQL grants EXECUTE on every new function to PUBLIC. A file that grants EXECUTE to one role
(usually service_role) clearly means to restrict the function to that role, but the grant adds a
holder and removes none: every role, anon and authenticated included, can still call it. (Trigger
functions are exempt, and so is a grant to anon or PUBLIC, which opens the function to every
caller anyway; SECURITY DEFINER functions left executable by the API roles are also an
error of security-definer-public-execute.)

    CREATE OR REPLACE FUNCTION public.memory_timeline(p_workspace_id text) ... ;
    GRANT EXECUTE ON FUNCTION public.memory_timeline(text) TO service_role;

becomes

    CREATE OR REPLACE FUNCTION public.memory_timeline(p_workspace_id text) ... ;
    REVOKE EXECUTE ON FUNCTION public.memory_timeline(text) FROM PUBLIC, anon, authenticated;
    GRANT EXECUTE ON FUNCTION public.memory_timeline(text) TO service_role;`,
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
