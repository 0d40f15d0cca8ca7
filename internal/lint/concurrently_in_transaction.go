package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// ConcurrentlyInTransaction is the id of the rule below.
const ConcurrentlyInTransaction = "concurrently-in-transaction"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: ConcurrentlyInTransaction, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		inTx := make([]bool, len(p.File.Stmts))
		open := false
		for _, op := range p.TopLevel() {
			switch op.Verb {
			case pgsql.VerbBegin:
				open = true
			case pgsql.VerbCommit, pgsql.VerbRollback:
				open = false
			}
			inTx[op.Stmt] = open
		}
		for _, op := range p.Ops() {
			if !op.Concurrently {
				continue
			}
			if op.Context != pgsql.TopLevel {
				p.Report(op.Pos, op.Object().String(), "%s CONCURRENTLY%s always runs inside a transaction, where PostgreSQL rejects it", op.Tag, where(op))
			} else if inTx[op.Stmt] {
				p.Report(op.Pos, op.Object().String(), "%s CONCURRENTLY inside a transaction block; PostgreSQL rejects it", op.Tag)
			}
		}
	},
})
