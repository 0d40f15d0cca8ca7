package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// UnsupportedStatement is the id of the rule below.
const UnsupportedStatement = "unsupported-statement"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: UnsupportedStatement, Severity: finding.SevError,
		Summary: "psql meta-commands or COPY ... FROM STDIN: not SQL the server can run",
		Explain: `A migration is applied by many clients (the Supabase SQL editor, supabase db push, a
migration runner), not only psql. psql meta-commands (\i, \set, \connect, ...) and COPY ... FROM
STDIN with inline data are psql features: every other client rejects the file. ledgercheck reports
them instead of failing to parse, and checks the rest of the file.

    \set ON_ERROR_STOP on
    COPY public.agent_decision_edges (from_memory_id, to_memory_id, relation) FROM STDIN;
    ...
    \.

becomes plain SQL:

    INSERT INTO public.agent_decision_edges (from_memory_id, to_memory_id, relation)
    VALUES (...) ON CONFLICT DO NOTHING;`,
	}),
	Check: func(p *Pass) {
		for _, m := range p.File.MetaCommands {
			p.Report(m.Pos, "", "%s is psql syntax, not SQL; other clients reject the file", abbreviate(m.Text, 40))
		}
		for _, op := range p.Ops() {
			if op.Verb == pgsql.VerbCopy && op.Copy() != nil && op.Copy().File == "" && op.Copy().From {
				p.Report(op.Pos, op.Object().String(), "COPY ... FROM STDIN needs psql to supply the data%s", where(op))
			}
		}
	},
})
