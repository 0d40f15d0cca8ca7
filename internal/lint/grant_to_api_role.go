package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
	"slices"
	"strings"
)

// GrantToAPIRole is the id of the rule below.
const GrantToAPIRole = "grant-to-api-role"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: GrantToAPIRole, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		for _, op := range p.Ops() {
			if op.Verb != pgsql.VerbGrant || op.Grant() == nil || op.Grant().Role {
				continue
			}
			for _, g := range op.Grant().Grantees {
				if slices.Contains(apiRoles, g) && !slices.Contains(p.Config.AllowedGrantees, g) {
					obj := ""
					if len(op.Objects) > 0 {
						obj = op.Objects[0].String()
					}
					who := g
					if g == "public" {
						who = "PUBLIC"
					}
					p.Report(op.At(), obj, "%s %s to %s%s; sidecar objects are granted to service_role only (allow it in lint.allowed_grantees if intended)", op.Tag, strings.Join(op.Grant().Privileges, ", "), who, where(op))
				}
			}
		}
	},
})
