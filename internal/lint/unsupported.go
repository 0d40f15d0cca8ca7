package lint

import (
	"ledgercheck/internal/finding"
	"ledgercheck/internal/pgsql"
)

var _ = register(&Rule{
	ID: "unsupported-statement", Severity: finding.SevError,
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
	Check: func(p *Pass) {
		for _, m := range p.File.MetaCommands {
			p.Report(m.Pos, "", "%s is psql syntax, not SQL; other clients reject the file", abbreviate(m.Text, 40))
		}
		for _, op := range p.Ops() {
			if op.Verb == pgsql.VerbCopy && op.Copy != nil && op.Copy.File == "" && op.Copy.From {
				p.Report(op.Pos, op.Object().String(), "COPY ... FROM STDIN needs psql to supply the data%s", where(op))
			}
		}
	},
})

var _ = register(&Rule{
	ID: "body-not-analysed", Severity: finding.SevWarning,
	Summary: "a function body, DO block or EXECUTE string that ledgercheck could not analyse",
	Explain: `ledgercheck opens PL/pgSQL and SQL function bodies and DO blocks and checks the statements in
them. When a body cannot be compiled (for a reason other than a syntax error, which is a
parse-error), is in another language, or a literal EXECUTE string does not parse, the statements in
it are not checked, and this warning says so rather than passing silently.

    DO LANGUAGE plpython3u $$ ... $$;

becomes PL/pgSQL, or a reviewed suppression:

    -- ledgercheck:ignore body-not-analysed reviewed by hand: only reads pg_catalog
    DO LANGUAGE plv8 $$ ... $$;`,
	Check: func(p *Pass) {
		for _, pr := range p.File.Problems {
			if !pr.Syntax && !pr.TooComplex {
				p.Report(pr.Pos, "", "not analysed: %s", pr.Msg)
			}
		}
	},
})
