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
