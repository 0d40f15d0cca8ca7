package lint

import "ledgercheck/internal/finding"

// ParseError is the id of the rule below.
const ParseError = "parse-error"

var ruleParseError = register(&Rule{
	ID: ParseError, Severity: finding.SevError,
	Summary: "the file (or a function body in it) does not parse",
	Explain: `A syntax error means PostgreSQL would reject the migration, so it is an error at its
exact position. Errors inside PL/pgSQL bodies and DO blocks count too: PostgreSQL compiles them
when the function is created. Nothing else is checked in a file that does not parse.

Fix the SQL at the reported line and column. For example

    CREATE TABLE t (id int,,);      -- syntax error at or near ","

becomes

    CREATE TABLE IF NOT EXISTS t (id int);

(squawk reports syntax errors too, but only with its own parser; ledgercheck uses PostgreSQL's.)`,
	Check: func(p *Pass) {
		for _, pr := range p.File.Problems {
			if pr.Syntax {
				p.Report(pr.Pos, "", "%s (PostgreSQL would reject the file)", pr.Msg)
			}
		}
	},
})
