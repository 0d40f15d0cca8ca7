package observe

import (
	"fmt"
	"slices"
	"strings"
)

// A fact is one thing a persona was seen doing that is a finding, under one privilege model:
// the rule, the object, who (the API role), what it did, and what opened it (the statement is
// found from opener when the file is known).
type fact struct {
	rule    string
	object  string // the finding's object: "table public.t"
	who     string // the API role: anon, authenticated
	extra   string // what else tells two facts of one rule and object apart (a side effect's table)
	message string
	detail  string
	opener  opener
	scope   string // the relation or function of the scope it concerns (checked against the base)
}

// key identifies a fact across privilege models.
func (f fact) key() string {
	who := ""
	if !sharedRules[f.rule] {
		who = f.who
	}
	return f.rule + "\x00" + f.object + "\x00" + who + "\x00" + f.extra
}

// sharedRules are the rules whose facts of anon and of a signed-in user are one finding (the
// same request, made by either).
var sharedRules = map[string]bool{RuleOutboundRequest: true, RuleRequestSideEffect: true, RuleCraftedValueRunsSQL: true,
	RuleClientValueWidensAccess: true, RuleAPIRoleCanGrant: true}

// opener is what let an action through: a policy of a relation, a grant on an object, a
// trigger or rule, a function, or the object itself.
type opener struct {
	kind, object, attr string   // for locate: "policy", "p on public.t", ""
	alts               []opener // tried in order when the first is not in the file
}

// facts derives the observation's facts.
func (ob *Observation) facts() []fact {
	var out []fact
	for _, d := range ob.done {
		out = append(out, ob.factsOf(d)...)
	}
	return out
}

// factsOf are the facts one action shows.
func (ob *Observation) factsOf(d *done) []fact {
	a := d.a
	if !d.ok && !(a.hostile && d.err != nil && d.err.Code == "42601") {
		return nil
	}
	var out []fact
	switch {
	case a.kind == actPolicy || a.kind == ActDirect || a.kind == actWithoutOthers || a.control:
		return nil
	case a.persona.setsClientValue():
		out = append(out, ob.clientValueFacts(d)...)
	case a.kind == ActEnrol || a.kind == ActPromote:
		out = append(out, ob.writeThenReadFacts(d)...)
	case a.fn != nil:
		out = append(out, ob.callFacts(d)...)
	case a.rel != nil:
		out = append(out, ob.relationFacts(d)...)
	}
	if d.ok {
		out = append(out, ob.effectFacts(d)...)
	}
	if a.hostile && (d.marker != "" || d.err != nil && d.err.Code == "42601") {
		out = append(out, ob.injectionFact(d))
	}
	return out
}

// relationFacts are what a persona's select, insert, update, delete or grant on a relation
// shows.
func (ob *Observation) relationFacts(d *done) []fact {
	a, r, p := d.a, d.a.rel, d.a.persona
	if a.hostile {
		return nil
	}
	mk := func(rule, msg string, cmd string) fact {
		return fact{rule: rule, object: r.Object(), who: p.Role, message: msg, opener: ob.openerOf(r, p.Role, cmd, d), scope: r.Ident,
			detail: ob.policyDetail(r, p.Role, cmd, d)}
	}
	switch a.kind {
	case ActSelect:
		return ob.readFacts(d, mk)
	case ActInsert:
		if !p.signedIn() && d.rows > 0 {
			return []fact{mk(RuleAnonWritesRows, fmt.Sprintf("anon can insert rows into %s", r.Object()), "INSERT")}
		}
	case ActUpdate, ActDelete:
		if !p.signedIn() && d.rows > 0 {
			verb := map[string]string{ActUpdate: "update", ActDelete: "delete"}[a.kind]
			return []fact{mk(RuleAnonWritesRows, fmt.Sprintf("anon can %s %s of %s", verb, ob.ofPresent(d.rows, r.Ident), r.Object()), commandOf(a.kind))}
		}
	case ActInsertOther:
		if r.ownershipIntended() && d.rows > 0 {
			return []fact{mk(RuleUserWritesOthersRows, fmt.Sprintf("a signed-in user can insert rows of %s owned by another user (%s set to another user's id)", r.Object(), strings.Join(r.Owners, ", ")), "INSERT")}
		}
	case ActUpdateOther, ActDeleteOther:
		if d.rows > 0 {
			verb := map[string]string{ActUpdateOther: "update", ActDeleteOther: "delete"}[a.kind]
			return []fact{mk(RuleUserWritesOthersRows, fmt.Sprintf("a signed-in user can %s %s of other users in %s", verb, rowsOf(d.rows), r.Object()), commandOf(a.kind))}
		}
	case ActReown:
		if d.rows > 0 {
			return []fact{mk(RuleUserWritesOthersRows, fmt.Sprintf("a signed-in user can give its rows of %s to another user (UPDATE sets %s to another user's id; the policy's WITH CHECK does not pin the owner)", r.Object(), a.owner), "UPDATE")}
		}
	case ActGrant:
		f := fact{rule: RuleAPIRoleCanGrant, object: r.Object(), who: p.Role, extra: a.value, scope: r.Ident,
			message: fmt.Sprintf("%s holds a privilege on %s with the grant option and can grant %s (GRANT ... WITH GRANT OPTION to an API role)", p.Role, r.Object(), a.value),
			opener:  opener{kind: kindOf(r), object: r.Ident, attr: "acl:" + p.Role}}
		return []fact{f}
	}
	return nil
}

// readFacts are what a select shows: anon reading any row; a signed-in user reading other
// users' rows where the policies mean rows to be their owner's, or every row of a table whose
// rows have owners.
func (ob *Observation) readFacts(d *done, mk func(rule, msg, cmd string) fact) []fact {
	r, p := d.a.rel, d.a.persona
	if d.rows == 0 {
		return nil
	}
	through := ""
	of := r.Object()
	if r.Kind != "table" && r.Kind != "partitioned table" && len(r.Bases) == 1 {
		of, through = "table "+r.Bases[0], " through "+r.Object()
	}
	cols := ""
	if c := r.columns(p.Role, "SELECT"); len(c) < len(r.Columns) {
		cols = " (columns " + strings.Join(c, ", ") + ")"
	}
	stream := ""
	if r.Published {
		stream = fmt.Sprintf("; %s is in the supabase_realtime publication, which streams its changes to whoever can read it", r.Object())
	}
	if !p.signedIn() {
		n := ob.ofPresent(d.rows, strings.TrimPrefix(strings.TrimPrefix(of, "table "), r.Kind+" "))
		return []fact{mk(RuleAnonReadsRows, fmt.Sprintf("anon can read %s of %s%s%s%s", n, of, through, cols, stream), "SELECT")}
	}
	own, others, ok := d.ownership()
	if !ok || others == 0 {
		return nil
	}
	if r.ownerOnly("SELECT") {
		return []fact{mk(RuleUserReadsOthersRows, fmt.Sprintf("a signed-in user can read %s of other users in %s, whose policies mean rows to be their owner's (%s)%s", rowsOf(others), r.Object(), strings.Join(r.Owners, ", "), stream), "SELECT")}
	}
	if all, _ := ob.present.of(r.Ident); all.all > 0 && int(d.rows) >= all.all && len(r.Owners) > 0 {
		_ = own
		return []fact{mk(RuleUserReadsEveryRow, fmt.Sprintf("a signed-in user can read every row of %s (%d of %d), other users' included, though its rows have owners (%s)%s", r.Object(), d.rows, all.all, strings.Join(r.Owners, ", "), stream), "SELECT")}
	}
	return nil
}

// ofPresent is "4 of 4 rows" (or "4 rows" when the rows present are not known).
func (ob *Observation) ofPresent(n int64, ident string) string {
	if p, ok := ob.present.of(ident); ok {
		return fmt.Sprintf("%d of %s", n, rowsOf(int64(p.all)))
	}
	return rowsOf(n)
}

// callFacts are what a function call shows: a persona getting rows back from a table it cannot
// read itself through the Data API. A SECURITY DEFINER function (or an aggregate with a definer
// support function), or one that switched the request's role (SET ROLE service_role), reads
// with other rights: what it returned came from rows the persona cannot read when the persona
// reads fewer than the table holds. An invoker function reads with the persona's own rights: it
// opens only what the Data API does not serve (a table of an unexposed schema the persona may
// read). A signed-in user's finding needs a table whose policies mean rows to be their owner's
// (the call passed another user's id).
func (ob *Observation) callFacts(d *done) []fact {
	a, f, p := d.a, d.a.fn, d.a.persona
	if a.hostile || d.rows == 0 || f.Returns == "void" {
		return nil
	}
	var out []fact
	for _, e := range d.effects {
		if e.Read == 0 {
			continue
		}
		direct := ob.direct(p.Name, e.Table)
		cnt, _ := ob.present.of(e.Table)
		all := cnt.all
		exposed := slices.Contains(ob.Scope.Exposed, schemaOf(e.Table))
		apiDirect := direct
		if !exposed {
			apiDirect = 0
		}
		switched := d.role != "" && d.role != p.Role
		var opened bool
		switch {
		case direct < 0 || all <= 0:
		case f.Definer || switched:
			opened = apiDirect < int64(all)
		default:
			// An invoker reads with the persona's rights (the role it ends the request as is the
			// persona's): it opens only what the Data API does not serve. What it returns of the
			// rest, a count over rows row level security hides included, the persona could read.
			opened = !exposed && direct > 0
		}
		if !opened || ob.returnsNothingOfOthers(d, e.Table) {
			continue
		}
		t := ob.Surface.Relation(e.Table)
		if p.signedIn() && (t == nil || !t.ownerOnly("SELECT")) {
			continue
		}
		rule, who := RuleAnonReadsRows, "anon"
		if p.signedIn() {
			rule, who = RuleUserReadsOthersRows, "a signed-in user"
		}
		how := fmt.Sprintf("%s can read %d of them itself through the Data API", who, apiDirect)
		if !exposed {
			how = "the Data API does not serve it"
		}
		if switched {
			how += "; the call switched the request to role " + d.role
		}
		out = append(out, fact{rule: rule, object: f.Object(), who: p.Role, extra: e.Table, scope: f.Ident,
			message: fmt.Sprintf("%s can call %s, which returned %s read from table %s (%s present; %s)",
				who, f.Object(), rowsOf(d.rows), e.Table, rowsOf(int64(all)), how),
			opener: opener{kind: "function", object: f.Ident, attr: "acl:" + p.Role, alts: []opener{{kind: "function", object: f.Ident}}}})
	}
	return out
}

// returnsNothingOfOthers reports whether d's call returned the same once the rows of table that
// are not its persona's were deleted (at least one), in the same request: what it returned
// depends on none of them.
func (ob *Observation) returnsNothingOfOthers(d *done, table string) bool {
	for _, x := range ob.done {
		if x.a.kind == actWithoutOthers && x.a.persona.Name == d.a.persona.Name && x.a.fn == d.a.fn && x.a.value == table {
			// results: SAVEPOINT, the request's settings, then the steps (withoutOthers).
			const first, del, second = 2 + 1, 2 + 4, 2 + 6
			return x.ok && len(x.results) > second && affected(x.results[del]) > 0 && x.results[first].value(0, 0) == x.results[second].value(0, 0)
		}
	}
	return false
}

// direct is how many rows of table persona read itself (ActDirect), -1 when it was not tried;
// a refused read is 0.
func (ob *Observation) direct(persona, table string) int64 {
	for _, d := range ob.done {
		if d.a.kind == ActDirect && d.a.persona.Name == persona && d.a.value == table {
			if !d.ok {
				return 0
			}
			return d.rows
		}
	}
	return -1
}

// writeThenReadFacts: a signed-in user who wrote a row of a relation another's policies read
// (ActEnrol: added himself to a membership table; ActPromote: set a flag or a role on his own
// row) sees more rows of that other relation.
func (ob *Observation) writeThenReadFacts(d *done) []fact {
	a := d.a
	rule, cmd := RuleUserEnrolsSelf, "INSERT"
	var msg string
	if a.kind == ActPromote {
		// The promotion's read counts the rows the user did not read before it.
		if d.rows == 0 {
			return nil
		}
		rule, cmd = RuleUserPromotesSelf, "UPDATE"
		msg = fmt.Sprintf("a signed-in user can set %s on his own row of %s and then read %s of %s he could not read before",
			a.value, a.via.Object(), rowsOf(d.rows), a.rel.Object())
		if a.fn != nil { // through a function that writes his own row: a new one is an enrolment
			writes := "writes his own row of"
			if a.enrols {
				rule, writes = RuleUserEnrolsSelf, "adds his own row to"
			}
			msg = fmt.Sprintf("a signed-in user can call %s, which %s %s, and then read %s of %s he could not read before",
				a.value, writes, a.via.Object(), rowsOf(d.rows), a.rel.Object())
			return []fact{{rule: rule, object: a.rel.Object(), who: a.persona.Role, extra: a.fn.Ident, scope: a.rel.Ident, message: msg, opener: ob.effectOpener(a)}}
		}
	} else {
		base := ob.baseSelect(a.persona.Name, a.rel)
		if base == nil || d.rows <= base.rows {
			return nil
		}
		msg = fmt.Sprintf("a signed-in user can add himself to %s (copies of another user's memberships, with his own id) and then read %s of %s instead of %d",
			a.via.Object(), rowsOf(d.rows), a.rel.Object(), base.rows)
	}
	return []fact{{rule: rule, object: a.rel.Object(), who: a.persona.Role, extra: a.via.Ident, scope: a.rel.Ident,
		message: msg, opener: ob.memberOpener(a.via, a.persona.Role, cmd, a.rel)}}
}

// baseSelect is persona's plain select of r, if it ran.
func (ob *Observation) baseSelect(persona string, r *Relation) *done {
	for _, d := range ob.done {
		if d.a.kind == ActSelect && d.a.persona.Name == persona && d.a.rel == r && d.ok {
			return d
		}
	}
	return nil
}

// clientValueFacts: a persona that sets a value it controls sees more rows than without, rows
// not his own where their owners show.
func (ob *Observation) clientValueFacts(d *done) []fact {
	a := d.a
	if a.kind == ActEnrol {
		return ob.metadataDefaultFacts(d)
	}
	base := ob.baseSelect(a.persona.base(), a.rel)
	var baseRows int64
	if base != nil {
		baseRows = base.rows
	}
	if d.rows <= baseRows {
		return nil
	}
	// A value that opens only the user's own rows (a policy that asks for it besides ownership:
	// aal2, a flag of his metadata) widens nothing: where the rows' owners show, the finding is
	// rows that are not his (another user's, or nobody's).
	if base != nil {
		if own, _, ok := d.ownership(); ok {
			if baseOwn, _, ok := base.ownership(); ok && d.rows-own <= baseRows-baseOwn {
				return nil
			}
		}
	}
	what := a.persona.Name[len(a.persona.base())+2 : len(a.persona.Name)-1]
	how := fmt.Sprintf("by setting %s, which the client controls", what)
	if a.persona.Factor {
		how = "by signing in with a second factor (aal2), which every user may enrol for himself"
	}
	return []fact{{rule: RuleClientValueWidensAccess, object: a.rel.Object(), who: a.persona.Role, extra: what, scope: a.rel.Ident,
		message: fmt.Sprintf("%s can read %s of %s instead of %d %s", a.persona.base(), rowsOf(d.rows), a.rel.Object(), baseRows, how),
		opener:  opener{kind: "policy", object: a.policy + " on " + a.rel.Ident, alts: []opener{{kind: kindOf(a.rel), object: a.rel.Ident}}}}}
}

// metadataDefaultFacts: user D, who added his own row of a membership table with his metadata
// set (metadataDefaults), reads more of the relation than after the same enrolment without it
// (its control): the default of a column of that table took the value. At the table's
// CREATE, where the default is.
func (ob *Observation) metadataDefaultFacts(d *done) []fact {
	a := d.a
	var base *done
	for _, c := range ob.done {
		if c.a.control && c.a.via == a.via && c.a.rel == a.rel && c.ok {
			base = c
		}
	}
	if base == nil || d.rows <= base.rows {
		return nil
	}
	what := a.persona.Name[len(a.persona.base())+2 : len(a.persona.Name)-1]
	return []fact{{rule: RuleClientValueWidensAccess, object: a.rel.Object(), who: a.persona.Role, extra: what, scope: a.rel.Ident,
		message: fmt.Sprintf("a user who signs up can read %s of %s instead of %d by setting %s, which the client controls, and adding his own row of %s, which fills a column with it",
			rowsOf(d.rows), a.rel.Object(), base.rows, what, a.via.Object()),
		opener: opener{kind: kindOf(a.via), object: a.via.Ident}}}
}

// effectFacts are an action's side effects on data the persona could not change itself (one
// fact for all of them), and the requests it queued for the network.
func (ob *Observation) effectFacts(d *done) []fact {
	a := d.a
	var out []fact
	what, obj, scope := ob.request(a)
	var changed []string
	for _, e := range d.effects {
		if !e.writes() {
			continue
		}
		switch {
		case e.Table == "net.http_request_queue":
			out = append(out, fact{rule: RuleOutboundRequest, object: obj, who: a.persona.Role, scope: scope, opener: ob.effectOpener(a),
				message: fmt.Sprintf("%s makes the database send an HTTP request (%s queued in net.http_request_queue): the caller reaches any URL the database can", what, rowsOf(e.Inserted))})
		case e.Table == "cron.job" || e.Unwritable:
			changed = append(changed, effectText(e))
		}
	}
	if len(changed) > 0 {
		more := ""
		if len(changed) > 2 {
			more = fmt.Sprintf(" (and changed %d more tables)", len(changed)-2)
			changed = changed[:2]
		}
		out = append(out, fact{rule: RuleRequestSideEffect, object: obj, who: a.persona.Role, scope: scope, opener: ob.effectOpener(a),
			message: fmt.Sprintf("%s also %s%s, which %s cannot change itself", what, strings.Join(changed, "; "), more, a.persona.Role)})
	}
	return out
}

// effectText is "deleted 4 rows of public.t".
func effectText(e Effect) string {
	var parts []string
	if e.Inserted > 0 {
		parts = append(parts, "inserted "+rowsOf(e.Inserted)+" into")
	}
	if e.Updated > 0 {
		parts = append(parts, "updated "+rowsOf(e.Updated)+" of")
	}
	if e.Deleted > 0 {
		parts = append(parts, "deleted "+rowsOf(e.Deleted)+" of")
	}
	return strings.Join(parts, ", ") + " " + e.Table
}

// request describes a's request for a message ("anon's insert into table public.t"), and the
// object and scope identity its facts concern.
func (ob *Observation) request(a *action) (what, object, scope string) {
	who := a.persona.Role
	if a.persona.signedIn() {
		who = "a signed-in user"
	}
	if a.fn != nil {
		return fmt.Sprintf("%s calling %s", who, a.fn.Object()), a.fn.Object(), a.fn.Ident
	}
	verb := map[string]string{ActInsert: "insert into", ActInsertOther: "insert into", ActUpdate: "update of", ActUpdateOther: "update of",
		ActReown: "update of", ActDelete: "delete from", ActDeleteOther: "delete from", ActSelect: "read of", ActEnrol: "insert into", ActPromote: "update of"}[a.kind]
	if verb == "" {
		verb = a.kind + " on"
	}
	return fmt.Sprintf("%s's %s %s", who, verb, a.rel.Object()), a.rel.Object(), a.rel.Ident
}

// injectionFact: a hostile value ran as SQL (the marker it sets was set), or broke the SQL it
// was spliced into (a syntax error where the plain value ran).
func (ob *Observation) injectionFact(d *done) fact {
	a := d.a
	what, obj, scope := ob.request(a)
	how := "ran as SQL in " + d.marker
	if d.marker == "" {
		how = "made the SQL it was spliced into a syntax error (" + d.err.Message + ")"
	}
	return fact{rule: RuleCraftedValueRunsSQL, object: obj, who: a.persona.Role, scope: scope, opener: ob.effectOpener(a),
		message: fmt.Sprintf("a crafted value in %s %s: text from the request is spliced into SQL without quoting (format %%L/%%I, or USING)", what, how),
		detail:  "value: " + a.value}
}

// kindOf is the relation's kind as locate names it.
func kindOf(r *Relation) string {
	switch r.Kind {
	case "view", "materialized view":
		return "view"
	}
	return "table"
}

// quoteIdentName quotes a name as quote_ident would (plain when it can be).
func quoteIdentName(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return qident(s)
		}
	}
	if slices.Contains(reserved, s) {
		return qident(s)
	}
	return s
}

// reserved are keywords quote_ident quotes that policy names plausibly use.
var reserved = []string{"all", "select", "insert", "update", "delete", "user", "table", "order", "group"}
