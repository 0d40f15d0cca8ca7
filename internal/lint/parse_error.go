package lint

import (
	"fmt"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// ParseError is the id of the rule below.
const ParseError = "parse-error"

var ruleParseError = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: ParseError, Severity: finding.SevError,
		Summary: "the file (or a function body in it) does not parse",
		Explain: `A syntax error means PostgreSQL would reject the migration, so it is an error at its
exact position. Errors inside PL/pgSQL bodies and DO blocks count too: PostgreSQL compiles them
when the function is created. Nothing else is checked in a file that does not parse.

ledgercheck parses with PostgreSQL 16's grammar (pg_query_go v5), which covers what PostgreSQL 15
takes. When the gate runs on PostgreSQL 17 (--pg 17, postgres: 17), syntax new in 17, such as
JSON_TABLE or MERGE ... RETURNING, is a parse error here although the server would take it, and
the message says so: write such a statement in a form 16 reads until ledgercheck's parser reads 17.

Fix the SQL at the reported line and column. For example

    CREATE TABLE t (id int,,);      -- syntax error at or near ","

becomes

    CREATE TABLE IF NOT EXISTS t (id int);

(squawk reports syntax errors too, but only with its own parser; ledgercheck uses PostgreSQL's.)`,
	}),
	Check: func(p *Pass) {
		for _, pr := range p.File.Problems {
			if pr.Syntax {
				p.Report(pr.Pos, "", "%s%s", pr.Msg, rejection(p.Options))
			}
		}
	},
})

// rejection is what a parse-error message adds: that PostgreSQL would reject the file, for the
// versions whose grammar the parser has; for a newer one, that the parser rejects it and why
// the server might not.
func rejection(opts Options) string {
	if opts.Postgres <= pgsql.GrammarVersion {
		return " (PostgreSQL would reject the file)"
	}
	return fmt.Sprintf(" (ledgercheck's parser, PostgreSQL %d's grammar, rejects the file; PostgreSQL %d may take it if this is syntax new in %d, such as JSON_TABLE or MERGE ... RETURNING, which ledgercheck cannot read yet)",
		pgsql.GrammarVersion, opts.Postgres, opts.Postgres)
}
