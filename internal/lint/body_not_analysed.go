package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// BodyNotAnalysed is the id of the rule below.
const BodyNotAnalysed = "body-not-analysed"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: BodyNotAnalysed, Severity: finding.SevWarning,
		Summary: "a function body, DO block or EXECUTE string that ledgercheck could not analyse",
		Explain: `ledgercheck opens PL/pgSQL and SQL function bodies and DO blocks and checks the statements in
them. When a body cannot be compiled (for a reason other than a syntax error, which is a
parse-error), is in another language, or a literal EXECUTE string does not parse, the statements in
it are not checked, and this warning says so rather than passing silently.

    DO LANGUAGE plpython3u $$ ... $$;

becomes PL/pgSQL, or a reviewed suppression:

    -- ledgercheck:ignore body-not-analysed reviewed by hand: only reads pg_catalog
    DO LANGUAGE plv8 $$ ... $$;`,
	}),
	Check: func(p *Pass) {
		for _, pr := range p.File.Problems {
			if !pr.Syntax && !pr.TooComplex {
				p.Report(pr.Pos, "", "not analysed: %s", pr.Msg)
			}
		}
	},
})
