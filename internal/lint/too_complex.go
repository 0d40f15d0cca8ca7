package lint

import (
	"fmt"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// TooComplex is the id of the rule below.
const TooComplex = "too-complex"

var ruleTooComplex = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: TooComplex, Severity: finding.SevError,
		Summary: "a statement nests expressions deeper than ledgercheck can parse",
		Explain: fmt.Sprintf(`ledgercheck reads SQL with pg_query, PostgreSQL's own parser built as a library, which hands
every parse tree over as nested messages. A statement nested thousands of levels deep (a chain
of 40,000 additions, thousands of nested sub-selects or function calls) is more than that
hand-over takes: the library fails, or crashes the process. So ledgercheck estimates how deeply
each statement nests before it parses it, and refuses one deeper than %d: each operator, call,
parenthesis or cast counts one level, a nested CASE two, a parenthesised sub-select three, a
UNION half. The estimate errs on the deep side.

PostgreSQL may accept such a statement, but ledgercheck cannot check it, so it is an error at
the statement (in a function body, a DO block or an EXECUTE string, at that statement). Split
the expression:

    SELECT 1 + 1 + 1 + ... + 1;        -- 40,000 terms

becomes

    SELECT sum(x) FROM (VALUES (1), (1), (1), ..., (1)) AS v(x);`, pgsql.MaxNesting),
	}),
	Check: func(p *Pass) {
		for _, pr := range p.File.Problems {
			if pr.TooComplex {
				p.Report(pr.Pos, "", "%s", pr.Msg)
			}
		}
	},
})
