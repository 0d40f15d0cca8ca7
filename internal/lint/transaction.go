package lint

import (
	"ledgercheck/internal/finding"
	"ledgercheck/internal/pgsql"
)

var _ = register(&Rule{
	ID: "unterminated-transaction", Severity: finding.SevError,
	Summary: "BEGIN without a matching COMMIT, or BEGIN inside an open transaction",
	Explain: `A BEGIN that is never committed leaves the whole migration in an open transaction: psql
rolls it back at exit, and a tool that keeps the session open holds its locks. A second BEGIN
inside an open transaction is ignored with a warning, and its COMMIT then ends the outer one.

    BEGIN;
    CREATE TABLE IF NOT EXISTS public.agent_decision_ledger (...);
    NOTIFY pgrst, 'reload schema';

becomes

    BEGIN;
    CREATE TABLE IF NOT EXISTS public.agent_decision_ledger (...);
    NOTIFY pgrst, 'reload schema';
    COMMIT;

(squawk: transaction-nesting.)`,
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

var _ = register(&Rule{
	ID: "concurrently-in-transaction", Severity: finding.SevError,
	Summary: "CREATE/DROP INDEX CONCURRENTLY or REINDEX CONCURRENTLY inside a transaction",
	Explain: `CONCURRENTLY cannot run inside a transaction block; PostgreSQL rejects it, so the whole
migration fails. That includes function bodies and DO blocks, which always run in a transaction.
(squawk: require-concurrent-index-creation and the transaction checks of prefer-robust-stmts.)

    BEGIN;
    CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_ledger_step ON public.agent_decision_ledger (step_index);
    COMMIT;

becomes either a plain CREATE INDEX inside the transaction (the table is new and empty)

    BEGIN;
    CREATE INDEX IF NOT EXISTS idx_ledger_step ON public.agent_decision_ledger (step_index);
    COMMIT;

or the CONCURRENTLY statement after the COMMIT.`,
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
