package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// CronCommandNotStatic is the id of the rule below (docs/rules/cron-command-not-static.md).
const CronCommandNotStatic = "cron-command-not-static"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: CronCommandNotStatic, Severity: finding.SevWarning,
	}),
	Check: func(p *Pass) {
		for _, j := range p.File.Jobs {
			if !j.Literal {
				p.Report(j.Pos, "", "%s is given a command built when the call runs (a concatenation, format(), a variable)%s; lint cannot read the SQL the job will run, nor can the install run it before the audit", j.Func, jobWhere(j))
			}
		}
	},
})
