package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// UnterminatedTransaction is the id of the rule below.
const UnterminatedTransaction = "unterminated-transaction"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: UnterminatedTransaction, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		var open *pgsql.Op
		for _, op := range p.TopLevel() {
			switch op.Verb {
			case pgsql.VerbBegin:
				if open != nil {
					p.Report(op.Pos, "", "BEGIN inside the transaction opened at %d:%d; PostgreSQL ignores it and the next COMMIT ends the outer transaction", open.Pos.Line, open.Pos.Col)
					continue
				}
				open = op
			case pgsql.VerbCommit, pgsql.VerbRollback:
				open = nil
			}
		}
		if open != nil {
			p.Report(open.Pos, "", "BEGIN has no matching COMMIT; the migration would be rolled back")
		}
	},
})
