package observe

import (
	"fmt"
	"slices"
	"strings"
)

// The actions a persona tries, each what a Data API request would run: a SELECT of the columns
// it may read (PostgREST's GET), an INSERT of a row of its own (POST; a signed-in user's rows
// carry its id), an UPDATE and a DELETE filtered on the rows it owns and on other users' rows
// (PATCH and DELETE always have a filter: Supabase loads safeupdate), an UPDATE that gives its
// row to another user, a call of each function it may execute (POST /rpc) with generated
// arguments (another user's id for a uuid), the same INSERT and call with hostile text where
// text reaches a trigger, a rule or a function, and a GRANT of what it holds with the grant
// option. Each runs in a savepoint rolled back, bounded by the role's statement timeout.

// The actions, as the access matrix names them.
const (
	ActSelect      = "select"
	ActInsert      = "insert"
	ActInsertOther = "insert as another user"
	ActUpdate      = "update"
	ActUpdateOther = "update another user's rows"
	ActReown       = "give a row to another user"
	ActDelete      = "delete"
	ActDeleteOther = "delete another user's rows"
	ActExecute     = "execute"
	ActGrant       = "grant"
	ActEnrol       = "enrol, then select"
	ActPromote     = "update own row, then select"
	ActDirect      = "select directly"
)

// action is one request of a persona.
type action struct {
	kind    string
	persona Persona
	rel     *Relation // the relation acted on (a table, a view; for ActEnrol and ActPromote the one read after)
	fn      *Function
	steps   []string // the statements, in the savepoint; the last one's result is measured
	owner   string   // the owner column of the rows counted (select), or filtered on
	method  string   // request.method
	path    string   // request.path
	value   string   // the hostile or client-controlled value it sends
	policy  string   // a client-controlled value's: the policy that reads it (quoted)
	hostile bool
	via     *Relation // ActEnrol, ActPromote: the membership table written first
	call    string    // ActExecute: the function's call expression
	enrols  bool      // ActPromote through a function whose call added the persona's row to via
	control bool      // ActEnrol of user D with no metadata: what the same enrolment with it is compared with
}

// requestTimeout bounds each request: a second, under Supabase's per-role statement timeouts
// (anon 3s, authenticated 8s), since a request on a handful of rows that takes longer is stuck
// (and a migration whose functions all sleep must not hold the gate).
const requestTimeout = "1s"

// setRequest is the statement that makes the savepoint a request of a: the role, the JWT's
// claims, the headers, cookies, method and path, as PostgREST sets them (set_config(..., true)).
func (a *action) setRequest() string {
	p := a.persona
	return fmt.Sprintf("SELECT pg_catalog.set_config('request.jwt.claims', %s, true), pg_catalog.set_config('request.headers', %s, true), "+
		"pg_catalog.set_config('request.cookies', %s, true), "+
		"pg_catalog.set_config('request.method', %s, true), pg_catalog.set_config('request.path', %s, true), "+
		"pg_catalog.set_config('statement_timeout', %s, true), pg_catalog.set_config('role', %s, true)",
		quoteLiteral(p.claims()), quoteLiteral(p.headers()), quoteLiteral(p.cookies()), quoteLiteral(a.method), quoteLiteral(a.path),
		quoteLiteral(requestTimeout), quoteLiteral(p.Role))
}

// restPath is the Data API's path of a relation or function.
func restPath(name string, rpc bool) string {
	if rpc {
		return "/rest/v1/rpc/" + name
	}
	return "/rest/v1/" + name
}

// quoteLiteral quotes s as an escape string literal, which reads the same whatever the
// session's standard_conforming_strings.
func quoteLiteral(s string) string { return "E'" + literalEscaper.Replace(s) + "'" }

var literalEscaper = strings.NewReplacer(`\`, `\\`, "'", "''")

// qident quotes an identifier.
func qident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// qualified is a relation's quoted schema and name.
func (r *Relation) qualified() string { return qident(r.Schema) + "." + qident(r.Name) }

// Object is how findings and the matrix name the relation: "table public.t".
func (r *Relation) Object() string { return r.Kind + " " + r.Ident }

// Object is how findings and the matrix name the function: "function public.f(text)".
func (f *Function) Object() string { return f.Kind + " " + f.Ident }

// ownerLiteral is the literal of user id for owner column col of r.
func (r *Relation) ownerLiteral(col, id string) string {
	if c := r.Column(col); c != nil && c.Type == "uuid" {
		return quoteLiteral(id) + "::pg_catalog.uuid"
	}
	return quoteLiteral(id) + "::pg_catalog.text"
}

// ownerList is the array literal of ids for owner column col of r.
func (r *Relation) ownerList(col string, ids ...string) string {
	typ := "pg_catalog.text"
	if c := r.Column(col); c != nil && c.Type == "uuid" {
		typ = "pg_catalog.uuid"
	}
	var lits []string
	for _, id := range ids {
		lits = append(lits, quoteLiteral(id))
	}
	return "ARRAY[" + strings.Join(lits, ", ") + "]::" + typ + "[]"
}

// selectAction counts the rows p sees of r (the columns it may read), and, when an owner column
// is readable, how many are its own, another signed-in user's, the other user's.
func selectAction(p Persona, r *Relation) *action {
	cols := r.columns(p.Role, "SELECT")
	if len(cols) == 0 {
		return nil
	}
	a := &action{kind: ActSelect, persona: p, rel: r, method: "GET", path: restPath(r.Name, false)}
	sel := "SELECT pg_catalog.count(*)"
	if o := r.owner(p.Role); o != "" {
		a.owner = o
		for _, id := range []string{UserA, UserB, UserC} {
			sel += fmt.Sprintf(", pg_catalog.count(*) FILTER (WHERE s.%s OPERATOR(pg_catalog.=) %s)", qident(o), r.ownerLiteral(o, id))
		}
	}
	var list []string
	for _, c := range cols {
		list = append(list, qident(c))
	}
	a.steps = []string{sel + " FROM (SELECT " + strings.Join(list, ", ") + " FROM " + r.qualified() + ") s"}
	return a
}

// writeActions are p's INSERT, UPDATE and DELETE of r, for what p holds the privilege of.
func (o *observer) writeActions(p Persona, r *Relation) []*action {
	var out []*action
	priv := r.Priv[p.Role]
	if priv.Insert || len(r.columns(p.Role, "INSERT")) > 0 {
		out = append(out, o.insertActions(p, r)...)
	}
	if priv.Update || len(r.columns(p.Role, "UPDATE")) > 0 {
		out = append(out, updateActions(p, r)...)
	}
	if priv.Delete {
		out = append(out, deleteActions(p, r)...)
	}
	return out
}

// insertActions inserts a generated row of p's own (a signed-in user's id in the owner
// columns), one owned by another user, and, where a trigger or rule reads the row, one whose
// text columns hold each hostile value.
func (o *observer) insertActions(p Persona, r *Relation) []*action {
	mine := map[string]string{}
	for _, col := range r.Owners {
		mine[col] = r.ownerLiteral(col, ownerFor(p))
	}
	row := o.row(r, mine)
	if row == "" {
		return nil
	}
	mk := func(kind, sql, value string) *action {
		return &action{kind: kind, persona: p, rel: r, steps: []string{sql}, method: "POST", path: restPath(r.Name, false), value: value, hostile: value != ""}
	}
	out := []*action{mk(ActInsert, row, "")}
	if p.signedIn() && len(r.Owners) > 0 {
		theirs := map[string]string{}
		for _, col := range r.Owners {
			theirs[col] = r.ownerLiteral(col, p.other())
		}
		if sql := o.row(r, theirs); sql != "" {
			out = append(out, mk(ActInsertOther, sql, ""))
		}
	}
	if len(r.Triggers)+len(r.Rules) > 0 {
		for _, v := range hostileValues {
			fixed := map[string]string{}
			for k, val := range mine {
				fixed[k] = val
			}
			n := 0
			for _, c := range r.Columns {
				if textual(c.Type) && !slices.Contains(r.Owners, c.Name) && c.can(p.Role, "INSERT") {
					fixed[c.Name] = quoteLiteral(v)
					n++
				}
			}
			if n == 0 {
				break
			}
			if sql := o.row(r, fixed); sql != "" {
				out = append(out, mk(ActInsert, sql, v))
			}
		}
	}
	return out
}

// ownerFor is the id p's own rows carry: its own, or, for anon, the other user's (C).
func ownerFor(p Persona) string {
	if p.signedIn() {
		return p.ID
	}
	return UserC
}

// textual reports whether a column of type typ holds text.
func textual(typ string) bool {
	return typ == "text" || strings.HasPrefix(typ, "character varying") || typ == "citext"
}

// setColumn is the column an UPDATE of r by role sets to itself: the first it may update that is
// not an owner column, else an owner column, else "".
func (r *Relation) setColumn(role string) string {
	cols := r.columns(role, "UPDATE")
	for _, c := range cols {
		if !slices.Contains(r.Owners, c) {
			return c
		}
	}
	if len(cols) > 0 {
		return cols[0]
	}
	return ""
}

// updateActions updates p's rows (anon: every row it can), another user's rows, and gives a
// row of p's to another user.
func updateActions(p Persona, r *Relation) []*action {
	set := r.setColumn(p.Role)
	if set == "" {
		return nil
	}
	mk := func(kind, sql string) *action {
		return &action{kind: kind, persona: p, rel: r, steps: []string{sql}, method: "PATCH", path: restPath(r.Name, false)}
	}
	upd := "UPDATE " + r.qualified() + " SET " + qident(set) + " = " + qident(set)
	o := r.owner(p.Role)
	if !p.signedIn() || o == "" {
		return []*action{mk(ActUpdate, upd+" WHERE true")}
	}
	out := []*action{
		mk(ActUpdate, upd+" WHERE "+qident(o)+" OPERATOR(pg_catalog.=) "+r.ownerLiteral(o, p.ID)),
		mk(ActUpdateOther, upd+" WHERE "+qident(o)+" OPERATOR(pg_catalog.=) ANY ("+r.ownerList(o, p.other(), UserC)+")"),
	}
	if c := r.Column(o); c != nil && c.can(p.Role, "UPDATE") {
		re := mk(ActReown, "UPDATE "+r.qualified()+" SET "+qident(o)+" = "+r.ownerLiteral(o, p.other())+
			" WHERE "+qident(o)+" OPERATOR(pg_catalog.=) "+r.ownerLiteral(o, p.ID))
		re.owner = o
		out = append(out, re)
	}
	return out
}

// deleteActions deletes p's rows (anon: every row it can) and another user's rows.
func deleteActions(p Persona, r *Relation) []*action {
	mk := func(kind, sql string) *action {
		return &action{kind: kind, persona: p, rel: r, steps: []string{sql}, method: "DELETE", path: restPath(r.Name, false)}
	}
	del := "DELETE FROM " + r.qualified()
	o := r.owner(p.Role)
	if !p.signedIn() || o == "" {
		return []*action{mk(ActDelete, del+" WHERE true")}
	}
	return []*action{
		mk(ActDelete, del+" WHERE "+qident(o)+" OPERATOR(pg_catalog.=) "+r.ownerLiteral(o, p.ID)),
		mk(ActDeleteOther, del+" WHERE "+qident(o)+" OPERATOR(pg_catalog.=) ANY ("+r.ownerList(o, p.other(), UserC)+")"),
	}
}

// grantActions grants what p's role holds with the grant option on r to the other API role.
func grantActions(p Persona, r *Relation) []*action {
	to := "authenticated"
	if p.Role == "authenticated" {
		to = "anon"
	}
	var out []*action
	for _, priv := range r.Grantable[p.Role] {
		out = append(out, &action{kind: ActGrant, persona: p, rel: r, value: priv + " to " + to, method: "POST", path: restPath(r.Name, false),
			steps: []string{"GRANT " + priv + " ON " + r.qualified() + " TO " + to}})
	}
	return out
}

// hostileValues are the text a client sends where text reaches SQL a trigger, a rule or a
// function builds: each sets the marker ledgercheck.injected when the SQL it lands in is run,
// in a string literal ('...%s...'), spliced as an expression (%s unquoted), after a statement
// break, and as an identifier (FROM %s).
var hostileValues = []string{
	`x'||pg_catalog.set_config('ledgercheck.injected','a quoted literal',true)||'`,
	`(pg_catalog.set_config('ledgercheck.injected','an unquoted value',true))`,
	`x'); SELECT pg_catalog.set_config('ledgercheck.injected','a new statement',true); --`,
	`pg_catalog.pg_class WHERE pg_catalog.set_config('ledgercheck.injected','an identifier',true) IS NOT NULL --`,
}

// trailerSQL reads, after a call or a hostile value, what the hostile value ran and the role the
// request ends as (a function may have switched it: SET ROLE, RESET ROLE).
const trailerSQL = `SELECT pg_catalog.current_setting('ledgercheck.injected', true), current_user::pg_catalog.text`

// trailed reports whether the action's results end with trailerSQL's.
func (a *action) trailed() bool { return a.hostile || a.kind == ActExecute }

// executeActions calls f as p: with generated arguments (another user's id for a uuid), and,
// when it takes text, with each hostile value in every text argument.
func (o *observer) executeActions(p Persona, f *Function) []*action {
	if !f.Execute[p.Role] {
		return nil
	}
	args, ok := o.arguments(p, f, "")
	if !ok {
		return nil
	}
	mk := func(args []string, value string) *action {
		call, stmt := callOf(f, args)
		return &action{kind: ActExecute, persona: p, fn: f, method: "POST", path: restPath(f.Name, true), value: value, hostile: value != "", call: call,
			steps: []string{stmt}}
	}
	out := []*action{mk(args, "")}
	if f.Kind == "function" && slices.ContainsFunc(f.required(), textual) {
		for _, v := range hostileValues {
			if hargs, ok := o.arguments(p, f, v); ok {
				out = append(out, mk(hargs, v))
			}
		}
	}
	return out
}

// callOf is the call of f with args (literals), and the statement that makes it: the result is
// read (NOT ... IS NULL), or the planner may leave out a STABLE call whose value nothing uses.
func callOf(f *Function, args []string) (call, stmt string) {
	call = qident(f.Schema) + "." + qident(f.Name) + "(" + strings.Join(args, ", ") + ")"
	return call, "SELECT pg_catalog.count(*) FROM (SELECT " + call + " AS v) s WHERE NOT (s.v IS NULL)"
}

// required are f's arguments without a default.
func (f *Function) required() []string { return f.Args[:len(f.Args)-f.Defaults] }

// arguments are the literals of f's required arguments for p: another user's id for a uuid,
// text (or hostile, when not "") for text, generated values otherwise.
func (o *observer) arguments(p Persona, f *Function, hostile string) ([]string, bool) {
	var out []string
	for i, t := range f.required() {
		var lit string
		switch {
		case t == "uuid":
			lit = quoteLiteral(otherFor(p)) + "::pg_catalog.uuid"
		case textual(t) && hostile != "":
			lit = quoteLiteral(hostile) + "::" + t
		default:
			v, ok := o.literal(t, f.Schema, i)
			if !ok {
				return nil, false
			}
			lit = v + "::" + t
		}
		out = append(out, lit)
	}
	return out, true
}

// otherFor is the id p passes for a uuid argument: another user's.
func otherFor(p Persona) string {
	if p.signedIn() {
		return p.other()
	}
	return UserA
}
