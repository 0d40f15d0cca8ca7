package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// MissingNotifyReload is the id of the rule below.
const MissingNotifyReload = "missing-notify-reload"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: MissingNotifyReload, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		top := p.TopLevel()
		i := len(top) - 1
		for i >= 0 && top[i].Verb == pgsql.VerbCommit {
			i--
		}
		if n := notifyOf(top, i); n != nil && n.Channel == "pgrst" && n.Payload == "reload schema" {
			return
		}
		pos := finding.Position{File: p.File.Name, Line: 1, Col: 1}
		msg := "the file is empty; it must end with NOTIFY pgrst, 'reload schema'"
		if i >= 0 {
			pos = top[i].Pos
			msg = "the last statement is " + top[i].Tag + "; the file must end with NOTIFY pgrst, 'reload schema' (a trailing COMMIT is fine)"
		}
		p.Report(pos, "", "%s", msg)
	},
})

// notifyOf returns the NOTIFY of ops[i], or nil when i is out of range or ops[i] is no NOTIFY.
func notifyOf(ops []*pgsql.Op, i int) *pgsql.Notify {
	if i < 0 || i >= len(ops) {
		return nil
	}
	return ops[i].Notify()
}
