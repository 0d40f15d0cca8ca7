package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// DestructiveStatement is the id of the rule below.
const DestructiveStatement = "destructive-statement"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: DestructiveStatement, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		for _, op := range p.Ops() {
			obj := op.Object()
			switch op.Verb {
			case pgsql.VerbDrop:
				if obj.Kind == pgsql.KindTable || obj.Kind == pgsql.KindSchema {
					for _, o := range op.Objects {
						p.Report(op.At(), o.String(), "%s %s destroys its data%s", op.Tag, o.Name, where(op))
					}
				}
			case pgsql.VerbTruncate:
				for _, o := range op.Objects {
					p.Report(o.Pos, o.String(), "TRUNCATE %s empties the table%s", o.Name, where(op))
				}
			case pgsql.VerbDelete, pgsql.VerbUpdate:
				if !op.HasWhere() {
					p.Report(op.Pos, obj.String(), "%s on %s without WHERE touches every row%s", op.Tag, obj.Name, where(op))
				}
			case pgsql.VerbAlter:
				for _, c := range op.AlterCmds() {
					if c.Action == "DropColumn" {
						p.Report(c.Pos, obj.String(), "DROP COLUMN %s destroys its data%s", pgsql.QuoteIdent(c.Name), where(op))
					}
				}
			}
		}
	},
})
