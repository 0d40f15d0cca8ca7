package lint

import (
	"fmt"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// OutboundRequestInCode is the id of the rule below (docs/rules/outbound-request-in-code.md).
const OutboundRequestInCode = "outbound-request-in-code"

// requestFunctions send an HTTP request from the database: pg_net's (which queue it for pg_net's
// worker) and the http extension's (which send it at once), by schema ("" for the http
// extension, which may live in any schema).
var requestFunctions = map[string]string{
	"http_get": "net", "http_post": "net", "http_delete": "net",
	"http_put": "", "http_patch": "", "http_head": "",
}

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: OutboundRequestInCode, Severity: finding.SevWarning,
	}),
	Check: func(p *Pass) {
		triggers := map[pgsql.Name]bool{} // the file's trigger functions
		for _, op := range p.TopLevel() {
			if f := op.Func(); f != nil && f.ReturnsTrigger {
				triggers[op.Object().Name] = true
			}
		}
		for _, op := range p.Ops() {
			if op.Context != pgsql.InFunction {
				continue // what runs at deploy time, the install observes (outbound-request-queued)
			}
			for _, c := range op.Calls {
				schema, ok := requestFunctions[c.Name.Name]
				if !ok || schema != "" && c.Name.Schema != "" && c.Name.Schema != schema {
					continue
				}
				to := "a URL computed when it runs"
				if c.Literal != "" {
					to = c.Literal
				}
				when := "each time the function runs"
				if triggers[op.Function] {
					when = "for every row its triggers fire on, in production (a trigger function)"
				}
				p.Report(c.Pos, fmt.Sprintf("function %s", op.Function), "%s sends a request to %s %s%s: data leaves the database",
					c.Name, to, when, where(op))
			}
		}
	},
})
