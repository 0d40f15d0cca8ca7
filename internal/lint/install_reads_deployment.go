package lint

import (
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// InstallReadsDeployment is the id of the rule below (docs/rules/install-reads-deployment.md).
const InstallReadsDeployment = "install-reads-deployment"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: InstallReadsDeployment, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		bodies := functionBodies(p.File)
		for _, op := range p.Ops() {
			// A policy's condition and a view's query run when a request does, not while the file
			// is deployed: access-varies-with-deployment's.
			if !deployTime(op) || op.Policy() != nil || storedQuery(op) {
				continue
			}
			report := func(pos finding.Position, what string) {
				p.Report(pos, "", "a statement %s reads %s while the file is deployed: what it does depends on the database, server or session it is deployed to, and what ledgercheck installed in its scratch database is not what production gets; do the same everywhere (drop the branch)",
					op.Context, what)
			}
			for _, v := range op.Values {
				if deploymentValue(v.Name) {
					report(v.Pos, v.Name)
				}
			}
			for _, c := range op.Calls {
				switch {
				case pgsql.RequesterCall(c):
				case deployTimeRead(c):
					report(c.Pos, callOf(c))
				case !pgCatalogName(c.Name):
					if inner := helperReads(c.Name, bodies, deployTimeRead, 0, map[pgsql.Name]bool{}); inner != "" {
						report(c.Pos, callOf(c)+", which reads "+inner)
					}
				}
			}
		}
	},
})

// storedQuery reports whether op creates a view: its query is stored, and runs when the view is
// read (a materialized view's runs while the file is deployed, to fill it).
func storedQuery(op *pgsql.Op) bool {
	return op.Verb == pgsql.VerbCreate && len(op.Objects) > 0 && op.Object().Kind == pgsql.KindView
}

// deployTime reports whether op runs while the file is deployed, or as its pg_cron job (which
// the install runs once, and production on its schedule): at top level, in a DO block, in a job's
// command, or in a literal EXECUTE outside a function body.
func deployTime(op *pgsql.Op) bool {
	switch op.Context {
	case pgsql.TopLevel, pgsql.InDo, pgsql.InJob:
		return true
	case pgsql.InExecute:
		return op.Function.Name == ""
	}
	return false
}

// deployTimeRead reports whether c reads, at deploy time, where the file is deployed: an
// [identityCall], or a [customSetting].
func deployTimeRead(c pgsql.Call) bool { return identityCall(c) || customSetting(c) }

// customSetting reports whether c is current_setting of a custom setting (a name with a dot,
// 'app.environment'), other than the request's (request.*, empty while a file is deployed):
// what a deployment configured for itself, which the scratch database does not have. A built-in
// setting ('server_version_num') is PostgreSQL's, the same on the server ledgercheck runs.
func customSetting(c pgsql.Call) bool {
	return pgCatalogName(c.Name) && c.Name.Name == "current_setting" && strings.Contains(c.Literal, ".") && !strings.HasPrefix(c.Literal, "request.")
}

// identityCall reports whether c calls, without arguments, a pg_catalog function PostgreSQL
// declares STABLE, other than a clock: what it returns is the session's or the server's own
// state, current_database(), version(), inet_server_port(), pg_postmaster_start_time(). A STABLE
// function of arguments (to_regclass('public.t'), to_char(now(), 'YYYY')) reads about them, and
// a VOLATILE one without (random(), gen_random_uuid()) differs on every call anyway.
func identityCall(c pgsql.Call) bool {
	if c.Args != 0 || !pgCatalogName(c.Name) || clockFunctions[c.Name.Name] {
		return false
	}
	return slices.ContainsFunc(pgCatalog().funcs[c.Name.Name], func(s pgSig) bool { return s.stable && s.accepts(0) })
}
