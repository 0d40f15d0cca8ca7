package lint

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// AccessVariesWithDeployment is the id of the rule below
// (docs/rules/access-varies-with-deployment.md).
const AccessVariesWithDeployment = "access-varies-with-deployment"

// clockFunctions are pg_catalog's functions that read the clock: what a policy may compare a
// row's time with (published_at <= now()), and what opens a table for everyone at a date when a
// term reads nothing else.
var clockFunctions = map[string]bool{"now": true, "clock_timestamp": true, "statement_timestamp": true,
	"transaction_timestamp": true, "timeofday": true}

// clockValues are SQL's value functions that read the clock.
var clockValues = map[string]bool{"current_date": true, "current_time": true, "current_timestamp": true,
	"localtime": true, "localtimestamp": true}

// maxHelperDepth bounds how deep the rule follows the file's functions that call each other.
const maxHelperDepth = 8

var ruleAccessVaries = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: AccessVariesWithDeployment, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		for _, h := range deploymentReads(p.File) {
			p.Report(h.pos, h.policy.String(), "%s", h.msg)
		}
		callableReads(p)
	},
})

// callableReads reports each function of the file that the Data API can call (in an exposed
// schema, executable by anon or authenticated once the file has run, not a trigger's), and each
// view it can read (selectable by anon or authenticated), whose body or query, or that of a
// function of the file it calls, asks where it runs: what install-reads-deployment reads at
// deploy time. A request calls or reads it in production; the observation, in the scratch
// database only.
func callableReads(p *Pass) {
	bodies := functionBodies(p.File)
	for _, po := range p.privileges() {
		if !slices.Contains(p.Config.Exposed(), po.obj.Name.Schema) {
			continue
		}
		var roles []string
		var inner, verb string
		switch fn := po.def.Func(); {
		case isFunction(po.obj) && fn != nil && !fn.ReturnsTrigger:
			if roles = po.apiHolders("execute"); len(roles) > 0 {
				inner, verb = helperReads(po.obj.Name, bodies, deployTimeRead, 0, map[pgsql.Name]bool{}), "call"
			}
		case (po.obj.Kind == pgsql.KindView || po.obj.Kind == pgsql.KindMatView) && po.def.Verb == pgsql.VerbCreate:
			if roles = po.apiHolders("select"); len(roles) > 0 {
				inner, verb = bodyReads(&body{calls: po.def.Calls, values: po.def.Values}, bodies, deployTimeRead, 0, map[pgsql.Name]bool{}), "read"
			}
		}
		if inner != "" {
			p.Report(po.def.Pos, po.obj.Label(), "%s, which %s may %s through the Data API, reads %s: what a request gets depends on the database, server or session it runs in, and what the observation saw in the scratch database is not what production returns; decide by the arguments, a column or the requester (auth.uid(), auth.jwt()) instead",
				po.obj.ShortLabel(), roleList(roles), verb, inner)
		}
	}
}

// deploymentRead is one finding of the rule: a read in the condition of a policy of f.
type deploymentRead struct {
	policy pgsql.Object
	pos    finding.Position
	clause string // USING or WITH CHECK
	msg    string
}

// deploymentReads returns the rule's findings on f, in the order of its policies and reads.
func deploymentReads(f *pgsql.File) []deploymentRead {
	bodies := functionBodies(f)
	var out []deploymentRead
	for i := range f.Ops {
		op := &f.Ops[i]
		pol := op.Policy()
		if pol == nil || !forAPIRoles(pol.Roles) {
			continue
		}
		obj := op.Object()
		for _, r := range pol.Reads {
			what, why := readOf(r), ""
			switch {
			case r.Value != "" && deploymentValue(r.Value):
				why = what // session_user, current_catalog, current_schema
			case r.Call.Name.Name != "" && deploymentCall(r.Call):
				why = what
			case r.Call.Name.Name != "" && !pgCatalogName(r.Call.Name):
				if inner := helperReads(r.Call.Name, bodies, deploymentCall, 0, map[pgsql.Name]bool{}); inner != "" {
					why = what + ", which reads " + inner
				}
			}
			switch {
			case why != "":
				out = append(out, deploymentRead{obj, r.Pos, r.Clause, fmt.Sprintf("%s of %s reads %s: it decides by where it runs, not by the row or the requester, and what the scratch database shows is not what production does; compare a column or the requester (auth.uid(), auth.jwt()) instead",
					r.Clause, obj, why)})
			case r.Alone && (clockValues[r.Value] || r.Call.Name.Name != "" && pgCatalogName(r.Call.Name) && clockFunctions[r.Call.Name.Name]):
				out = append(out, deploymentRead{obj, r.Pos, r.Clause, fmt.Sprintf("%s of %s has a term that reads %s and no column or requester: it opens or closes the table for everyone at some moment, and the scratch database shows only the moment it ran; compare the time with a column instead",
					r.Clause, obj, what)})
			}
		}
	}
	return out
}

// InstalledDeploymentReads applies the rule to the installed policies of f: installed is the
// policies the install created or changed, and the functions they may call, written back as SQL
// from the catalog (see internal/crosscheck), and at locates a policy (its [pgsql.Object] in
// installed) at the statement of f that made it. A finding lint already made on f's text is not
// made again; what is left was made or changed by SQL built at run time (an EXECUTE that creates
// the policy, or alters one the text created harmless). Findings keep the rule's severity and
// suppressions (at the located statement).
func InstalledDeploymentReads(f *pgsql.File, cfg Config, installed *pgsql.File, at func(pgsql.Object) finding.Position) []finding.Finding {
	sev, on := cfg.severity(ruleAccessVaries)
	if !on || installed == nil {
		return nil
	}
	seen := map[string]bool{} // a clause of a policy that lint reported on f's text (names print otherwise installed)
	for _, h := range deploymentReads(f) {
		seen[h.policy.String()+" "+h.clause] = true
	}
	var out []finding.Finding
	for _, h := range deploymentReads(installed) {
		if seen[h.policy.String()+" "+h.clause] {
			continue
		}
		seen[h.policy.String()+" "+h.clause] = true
		pos := at(h.policy)
		if Suppressed(f, AccessVariesWithDeployment, pos) {
			continue
		}
		out = append(out, finding.Finding{Phase: finding.PhaseLint, Rule: AccessVariesWithDeployment, Severity: sev, Pos: pos,
			Object: h.policy.String(), Message: h.msg + " (as installed: SQL built at run time made or changed the policy)"})
	}
	sortFindings(out)
	return out
}

// forAPIRoles reports whether a policy with TO roles applies to the Data API's requests: to
// PUBLIC (no TO, or TO public), anon or authenticated.
func forAPIRoles(roles []string) bool {
	return len(roles) == 0 || slices.ContainsFunc(roles, func(r string) bool {
		return r == "public" || r == "anon" || r == "authenticated"
	})
}

// readOf is a read as a message shows it: session_user, current_database(), public.f(),
// current_setting('app.open').
func readOf(r pgsql.PolicyRead) string {
	if r.Value != "" {
		return r.Value
	}
	return callOf(r.Call)
}

// callOf is a call as a message shows it: its name, and its string constant argument if any.
func callOf(c pgsql.Call) string {
	if c.Literal != "" {
		return c.Name.String() + "('" + strings.ReplaceAll(c.Literal, "'", "''") + "')"
	}
	return c.Name.String() + "()"
}

// pgCatalogName reports whether a call's name is pg_catalog's: qualified with it, or unqualified
// and the name of a pg_catalog function (pg_catalog comes first on every search path).
func pgCatalogName(n pgsql.Name) bool {
	if n.Schema != "" {
		return n.Schema == "pg_catalog"
	}
	_, ok := pgCatalog().funcs[n.Name]
	return ok
}

// deploymentCall reports whether c calls a pg_catalog function that PostgreSQL declares other
// than IMMUTABLE (its result may differ for the same arguments) and that is neither a clock nor
// a reader of the requester: current_database(), version(), inet_client_addr(),
// current_setting('app.x'), to_regclass('t'), random().
func deploymentCall(c pgsql.Call) bool {
	if !pgCatalogName(c.Name) || clockFunctions[c.Name.Name] {
		return false
	}
	return slices.ContainsFunc(pgCatalog().funcs[c.Name.Name], func(s pgSig) bool { return s.varies && s.accepts(c.Args) })
}

// deploymentValue reports whether a value function reads the deployment: SESSION_USER,
// CURRENT_CATALOG, CURRENT_SCHEMA (neither a clock nor the requester).
func deploymentValue(v string) bool {
	return !clockValues[v] && !pgsql.RequesterValue(v)
}

// body is what one of the file's functions calls and reads, over all its statements.
type body struct {
	calls  []pgsql.Call
	values []pgsql.ValueRead
}

// functionBodies returns what each of f's function bodies calls and reads.
func functionBodies(f *pgsql.File) map[pgsql.Name]*body {
	bodies := map[pgsql.Name]*body{}
	for i := range f.Ops {
		op := &f.Ops[i]
		if op.Context == pgsql.InFunction {
			b := bodies[op.Function]
			if b == nil {
				b = &body{}
				bodies[op.Function] = b
			}
			b.calls, b.values = append(b.calls, op.Calls...), append(b.values, op.Values...)
		}
	}
	return bodies
}

// helperReads returns the first read of the deployment (a value function, or a pg_catalog call
// reads reports) in the body of the file's function name, or in a function of the file it calls,
// as [readOf] shows it: "" when there is none or the file does not define it.
func helperReads(name pgsql.Name, bodies map[pgsql.Name]*body, reads func(pgsql.Call) bool, depth int, seen map[pgsql.Name]bool) string {
	if depth > maxHelperDepth {
		return ""
	}
	for _, fn := range slices.SortedFunc(maps.Keys(bodies), func(a, b pgsql.Name) int { return strings.Compare(a.String(), b.String()) }) {
		if fn.Name != name.Name || name.Schema != "" && fn.Schema != "" && fn.Schema != name.Schema || seen[fn] {
			continue
		}
		seen[fn] = true
		if r := bodyReads(bodies[fn], bodies, reads, depth, seen); r != "" {
			return r
		}
	}
	return ""
}

// bodyReads is what b reads, itself or through the file's functions it calls, that reads (or a
// value function) says depends on where it runs; "" when nothing does.
func bodyReads(b *body, bodies map[pgsql.Name]*body, reads func(pgsql.Call) bool, depth int, seen map[pgsql.Name]bool) string {
	for _, v := range b.values {
		if deploymentValue(v.Name) {
			return v.Name
		}
	}
	for _, c := range b.calls {
		switch {
		case pgsql.RequesterCall(c):
		case reads(c):
			return callOf(c)
		case !pgCatalogName(c.Name):
			if inner := helperReads(c.Name, bodies, reads, depth+1, seen); inner != "" {
				return fmt.Sprintf("%s through %s()", inner, c.Name)
			}
		}
	}
	return ""
}
