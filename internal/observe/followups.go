package observe

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// The second round: what the first round's results call for.

// actPolicy is an internal action: the rows one policy's USING lets a persona see, to say which
// policy opened what the persona read or changed.
const actPolicy = "policy rows"

// memberSQL reads the rows of a membership table (spliced in) owned by A or B in its owner
// column (spliced in), as the reader, in text (at most 16: an enrolment copies all of the other
// user's); memberUUIDSQL for a uuid owner column.
const (
	memberSQL     = `SELECT %[2]s FROM %[1]s WHERE %[3]s OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[]) LIMIT 16`
	memberUUIDSQL = `SELECT %[2]s FROM %[1]s WHERE %[3]s OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.uuid[]) LIMIT 16`
)

// membershipRows reads the rows of each membership relation that A and B own, for a signed-in
// user who copies another's membership with his own id. Tables only: the reader (BYPASSRLS,
// pg_read_all_data) would run a view's query, and the file's functions in it, with its rights.
// A membership view over one table, whose columns that table has (a view that lists the
// members, which a persona inserts through), is read in that table.
func (o *observer) membershipRows(ctx context.Context) error {
	for _, r := range o.s.Relations {
		if r.Related {
			continue
		}
		for _, m := range o.s.memberships(r) {
			src := o.s.memberTable(m)
			if _, ok := o.members[m.Ident]; ok || src == nil {
				continue
			}
			o.members[m.Ident] = nil
			var cols, list []string
			for _, c := range m.Columns {
				if !c.Auto || slices.Contains(m.Owners, c.Name) {
					cols = append(cols, c.Name)
					list = append(list, qident(c.Name))
				}
			}
			owner := m.Owners[0]
			q := memberSQL
			if c := m.Column(owner); c != nil && c.Type == "uuid" {
				q = memberUUIDSQL
			}
			rows, err := readText(ctx, o.c.Reader, fmt.Sprintf(q, src.qualified(), strings.Join(list, ", "), qident(owner)), "{"+UserA+","+UserB+"}")
			if err != nil {
				return fmt.Errorf("reading the membership rows: %w", err)
			}
			for _, vals := range rows {
				row := map[string]string{ownerKey: owner}
				for i, v := range vals {
					if v != nil {
						row[cols[i]] = *v
					}
				}
				o.members[m.Ident] = append(o.members[m.Ident], row)
			}
		}
	}
	return nil
}

// memberTable is the table the reader reads m's rows in: m, a table; the one table a view m
// reads, when it has every column of m (a view that renames or computes one is not read); else
// nil.
func (s *Surface) memberTable(m *Relation) *Relation {
	if m.table() {
		return m
	}
	if len(m.Bases) != 1 {
		return nil
	}
	b := s.Relation(m.Bases[0])
	if b == nil || !b.table() {
		return nil
	}
	for _, c := range m.Columns {
		if b.Column(c.Name) == nil {
			return nil
		}
	}
	return b
}

// ownerKey keys, in a membership row, the name of its owner column.
const ownerKey = "\x00owner"

// secondRound is the follow-ups of the first round.
func (o *observer) secondRound() []*action {
	var out []*action
	for _, d := range o.done {
		a := d.a
		switch {
		case a.kind == ActSelect && d.ok && a.persona.signedIn() && a.persona.Metadata == nil:
			out = append(out, o.enrolments(a)...)
			out = append(out, o.promotions(a)...)
			out = append(out, o.metadataDefaults(a)...)
		case a.kind == ActExecute && d.ok && d.rows > 0:
			out = append(out, o.directReads(d)...)
			out = append(out, o.withoutOthers(d)...)
		}
		if d.ok && d.rows > 0 && a.rel != nil && a.rel.RLS && !a.hostile {
			out = append(out, o.policyRows(a)...)
		}
	}
	out = append(out, o.clientValueReads()...)
	return out
}

// enrolments are a signed-in user adding himself to each membership table of a's relation
// (copies of the other user's memberships, every one read, with his own id: one bulk insert that
// skips a membership he already has, as PostgREST's with resolution=ignore-duplicates), then
// reading a's relation again. Every membership, not the first: which of them a row of a's
// relation belongs to depends on the rows, not on their order.
func (o *observer) enrolments(a *action) []*action {
	var out []*action
	p := a.persona
	for _, m := range o.s.memberships(a.rel) {
		if !m.Priv[p.Role].Insert {
			continue
		}
		var rows []map[string]string
		for _, row := range o.members[m.Ident] {
			if row[row[ownerKey]] == p.other() {
				rows = append(rows, row)
			}
		}
		if len(rows) == 0 {
			continue
		}
		var cols []string
		var names []string
		for _, c := range m.Columns {
			if slices.ContainsFunc(rows, func(r map[string]string) bool { _, ok := r[c.Name]; return ok }) {
				cols = append(cols, c.Name)
				names = append(names, qident(c.Name))
			}
		}
		var tuples []string
		for _, row := range rows {
			var vals []string
			for _, c := range cols {
				v, ok := row[c]
				switch {
				case c == row[ownerKey]:
					vals = append(vals, m.ownerLiteral(c, p.ID))
				case ok:
					vals = append(vals, quoteLiteral(v))
				default:
					vals = append(vals, "DEFAULT")
				}
			}
			tuples = append(tuples, strings.Join(vals, ", "))
		}
		ins := "INSERT INTO " + m.qualified() + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(tuples, "), (") + ") ON CONFLICT DO NOTHING"
		out = append(out, &action{kind: ActEnrol, persona: p, rel: a.rel, via: m, owner: a.owner, method: "POST", path: restPath(m.Name, false),
			steps: []string{ins, a.steps[0]}})
	}
	return out
}

// metadataDefaults are the enrolments a default of the user's metadata turns into promotions: a
// membership table m of a's relation whose column defaults to a key of user_metadata (role
// text DEFAULT coalesce(auth.jwt() -> 'user_metadata' ->> 'role', 'member')), or whose trigger
// sets it from one (Relation.metadataKeys), which a user fills with what he put in his metadata
// when he adds his own row, though he may not set the column. User D, who owns no row, adds his
// own row of m (its owner column, every other its default) and reads a's relation again: once
// with no metadata (the control), then with each key the defaults name set to each word of a's
// policies' literals. Made for user A's reads only, once for both signed-in users.
func (o *observer) metadataDefaults(a *action) []*action {
	if a.persona.ID != UserA {
		return nil
	}
	words := literalWords(a.rel.policyText())
	var out []*action
	for _, m := range o.s.memberships(a.rel) {
		keys := m.metadataKeys()
		owner := m.Owners[0]
		if len(keys) == 0 || !m.Priv[userD.Role].Insert && !slices.Contains(m.Column(owner).Priv[userD.Role], "INSERT") {
			continue
		}
		ins := "INSERT INTO " + m.qualified() + " (" + qident(owner) + ") VALUES (" + m.ownerLiteral(owner, UserD) + ") ON CONFLICT DO NOTHING"
		mk := func(p Persona) *action {
			return &action{kind: ActEnrol, persona: p, rel: a.rel, via: m, owner: a.owner, method: "POST", path: restPath(m.Name, false),
				steps: []string{ins, a.steps[0]}}
		}
		ctl := mk(userD)
		ctl.control = true
		out = append(out, ctl)
		n := 0
		for _, k := range keys {
			for _, v := range words {
				if v == k || n == maxClientValues {
					continue
				}
				n++
				t := mk(userD.with(controlled{Kind: metadata, Key: k}, v))
				t.value = v
				out = append(out, t)
			}
		}
	}
	return out
}

// maxPromotions bounds the values a persona sets on its own row of one membership relation.
const maxPromotions = 6

// rowDigestsSQL returns a digest of each row the persona reads of a relation (its readable
// columns and the relation spliced in). A promotion reads them before and after its update and
// counts, here, the rows it reads then that it did not before (newRows): moving one's membership
// to another team reads as many rows, not the same ones. The digests come back to ledgercheck
// rather than staying in the transaction, where the file's code (a trigger of the update) could
// change them.
const rowDigestsSQL = "SELECT pg_catalog.md5(s::pg_catalog.text) FROM (SELECT %[1]s FROM %[2]s) s"

// newRows is how many of the rows after lists that before does not (digests, counted each).
func newRows(before, after result) int64 {
	seen := map[string]int{}
	for i := range before.rows {
		seen[before.value(i, 0)]++
	}
	var n int64
	for i := range after.rows {
		if v := after.value(i, 0); seen[v] > 0 {
			seen[v]--
		} else {
			n++
		}
	}
	return n
}

// promotions are a signed-in user changing his own row of each membership relation of a's
// relation (a profile whose is_admin, or role, a policy of a's relation reads; a membership whose
// team he moves to another's) and reading a's relation again: each column of it that those
// policies name, and that the user may update, set to what would let him in (true for a boolean,
// each word of the policies' literals for text, the largest smallint for a number, else the
// other user's values of it).
func (o *observer) promotions(a *action) []*action {
	var out []*action
	p := a.persona
	text := a.rel.policyText()
	words := literalWords(text)
	var cols []string
	for _, c := range a.rel.columns(p.Role, "SELECT") {
		cols = append(cols, qident(c))
	}
	digests := fmt.Sprintf(rowDigestsSQL, strings.Join(cols, ", "), a.rel.qualified())
	for _, m := range o.s.memberships(a.rel) {
		n := 0
		for _, c := range m.Columns {
			if slices.Contains(m.Owners, c.Name) || !nameRE(c.Name).MatchString(text) ||
				!m.Priv[p.Role].Update && !slices.Contains(c.Priv[p.Role], "UPDATE") {
				continue
			}
			vals := promotedValues(c.Type, words)
			if len(vals) == 0 {
				vals = o.othersValues(m, c.Name, p)
			}
			for _, v := range vals {
				if n == maxPromotions {
					break
				}
				n++
				upd := "UPDATE " + m.qualified() + " SET " + qident(c.Name) + " = " + v.lit + " WHERE " + qident(m.Owners[0]) + " OPERATOR(pg_catalog.=) " + m.ownerLiteral(m.Owners[0], p.ID)
				out = append(out, &action{kind: ActPromote, persona: p, rel: a.rel, via: m, owner: a.owner, value: c.Name + " = " + v.shown,
					method: "PATCH", path: restPath(m.Name, false), steps: []string{digests, upd, digests}})
			}
		}
		out = append(out, o.promotingCalls(a, m, words, digests)...)
	}
	return out
}

// promotingCalls are the promotions of a's persona through a function it may call (an RPC, not
// a PATCH) whose call, with generated arguments, wrote the persona's own rows of membership
// relation m (a SECURITY DEFINER set_my_role(new_role text) that updates the caller's profile,
// a join_team(team uuid) that adds him to a team): called again with each of its arguments, one
// at a time, set to what would let him in (the values promotedValues gives for its type; for
// a type that is not a boolean, a number or text, such as a uuid or an enum, the other user's
// values of m's columns of that type first), then a's relation read again (digests, the
// persona's digests of its rows). Which column the function writes is not known from its text:
// each value is tried in each argument.
func (o *observer) promotingCalls(a *action, m *Relation, words []string, digests string) []*action {
	p := a.persona
	var out []*action
	for _, d := range o.done {
		c := d.a
		if c.kind != ActExecute || c.hostile || !d.ok || c.persona.Name != p.Name || c.fn.Kind != "function" ||
			!slices.ContainsFunc(d.effects, func(e Effect) bool { return e.Table == m.Ident && e.Inserted+e.Updated > 0 }) {
			continue
		}
		enrols := slices.ContainsFunc(d.effects, func(e Effect) bool { return e.Table == m.Ident && e.Inserted > 0 })
		base, ok := o.arguments(p, c.fn, "")
		if !ok {
			continue
		}
		n := 0
		for i, t := range c.fn.required() {
			vals := promotedValues(t, words)
			if !textual(t) && promotedValues(t, nil) == nil { // the team a join_team(team uuid) adds the caller to
				for _, col := range m.Columns {
					if col.Type == t && !slices.Contains(m.Owners, col.Name) {
						vals = append(o.othersValues(m, col.Name, p), vals...)
					}
				}
			}
			for _, v := range vals {
				if n == maxPromotions {
					break
				}
				n++
				args := slices.Clone(base)
				args[i] = v.lit + "::" + t
				call, stmt := callOf(c.fn, args)
				shown := c.fn.Schema + "." + c.fn.Name + "(" + strings.Repeat("…, ", i) + v.shown + ")"
				out = append(out, &action{kind: ActPromote, persona: p, rel: a.rel, via: m, owner: a.owner, fn: c.fn, call: call, value: shown, enrols: enrols,
					method: "POST", path: restPath(c.fn.Name, true), steps: []string{digests, stmt, digests}})
			}
		}
	}
	return out
}

// othersValues are the values of column col in the other user's rows of membership relation m
// (membershipRows), each once: moving his own membership to another user's team.
func (o *observer) othersValues(m *Relation, col string, p Persona) []promoted {
	var out []promoted
	for _, row := range o.members[m.Ident] {
		v, ok := row[col]
		if !ok || row[row[ownerKey]] != p.other() {
			continue
		}
		x := promoted{quoteLiteral(v), "'" + strings.ReplaceAll(v, "'", "''") + "' (another user's)"}
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// promoted is a value to set a column to: its literal, and how a message shows it.
type promoted struct{ lit, shown string }

// promotedValues are the values to set a column of type typ to: true for a boolean, 32767 for a
// number, else the literal words (text, or another type a string literal is assigned to: an
// enum).
func promotedValues(typ string, words []string) []promoted {
	switch {
	case typ == "boolean":
		return []promoted{{"true", "true"}}
	case typ == "smallint" || typ == "integer" || typ == "bigint" || strings.HasPrefix(typ, "numeric"):
		return []promoted{{"32767", "32767"}}
	}
	var out []promoted
	for _, w := range words {
		if w != "" && !strings.ContainsAny(w, "{}\"") {
			out = append(out, promoted{quoteLiteral(w), "'" + strings.ReplaceAll(w, "'", "''") + "'"})
		}
	}
	return out
}

// actWithoutOthers is an internal action: a function called again, in the same request, once the
// rows of a table it read that are not the persona's are deleted (as service_role, rolled back
// with the request), to see whether what it returns depends on them (callFacts).
const actWithoutOthers = "call without others' rows"

// resultDigest is the digest of what a call (spliced in) returns, every row in text.
const resultDigest = "SELECT pg_catalog.md5(COALESCE(pg_catalog.string_agg(s.v::pg_catalog.text, ',' ORDER BY s.v::pg_catalog.text), '')) FROM (SELECT %s AS v) s"

// withoutOthers are, for a call of d that read a table with an owner column, the same call
// before and after the rows of that table other than the persona's own are deleted: when what it
// returns is the same, it did not return anything of theirs (a SECURITY DEFINER is_admin() that
// reads the caller's own profile). The first call runs in a savepoint rolled back before the
// deletes, so that nothing it kept in the transaction (a setting) can answer the second.
func (o *observer) withoutOthers(d *done) []*action {
	a := d.a
	if a.hostile || a.call == "" || a.fn.Returns == "void" || !a.persona.signedIn() {
		return nil
	}
	var out []*action
	for _, e := range d.effects {
		t := o.s.Relation(e.Table)
		if e.Read == 0 || t == nil || !t.table() || len(t.Owners) == 0 {
			continue
		}
		digest := fmt.Sprintf(resultDigest, a.call)
		owner := qident(t.Owners[0])
		del := "DELETE FROM " + t.qualified() + " WHERE " + owner + " IS NULL OR NOT (" + owner + " OPERATOR(pg_catalog.=) " + t.ownerLiteral(t.Owners[0], a.persona.ID) + ")"
		out = append(out, &action{kind: actWithoutOthers, persona: a.persona, fn: a.fn, value: e.Table, method: a.method, path: a.path,
			steps: []string{"SAVEPOINT ledgercheck_first", digest, "ROLLBACK TO SAVEPOINT ledgercheck_first",
				"SELECT pg_catalog.set_config('role', 'service_role', true)", del,
				"SELECT pg_catalog.set_config('role', " + quoteLiteral(a.persona.Role) + ", true)", digest}})
	}
	return out
}

// directReads are the persona reading, itself, each table a function call of d read: whether
// the call returned what the persona could not read.
func (o *observer) directReads(d *done) []*action {
	var out []*action
	for _, e := range d.effects {
		if e.Read == 0 {
			continue
		}
		if o.find(func(x *done) bool {
			return x.a.kind == ActDirect && x.a.persona.Name == d.a.persona.Name && x.a.value == e.Table
		}) != nil || slices.ContainsFunc(out, func(x *action) bool { return x.value == e.Table && x.persona.Name == d.a.persona.Name }) {
			continue
		}
		out = append(out, &action{kind: ActDirect, persona: d.a.persona, value: e.Table, method: "GET", path: restPath(nameOf(e.Table), false),
			steps: []string{"SELECT pg_catalog.count(*) FROM " + quoteTable(e.Table)}})
	}
	return out
}

// policyRows are, for each permissive policy of a's relation that applies to a's role and
// command, the rows its USING lets the persona see (when there is more than one: with one,
// it is the one).
func (o *observer) policyRows(a *action) []*action {
	cmd := commandOf(a.kind)
	if cmd == "" || cmd == "INSERT" {
		return nil
	}
	ps := a.rel.permissive(a.persona.Role, cmd)
	if len(ps) < 2 {
		return nil
	}
	var out []*action
	for _, p := range ps {
		if p.Using == "" {
			continue
		}
		out = append(out, &action{kind: actPolicy, persona: a.persona, rel: a.rel, value: p.Name + "\x00" + a.kind, method: "GET", path: restPath(a.rel.Name, false),
			steps: []string{"SELECT pg_catalog.count(*) FROM " + a.rel.qualified() + " WHERE (" + p.Using + ")"}})
	}
	return out
}

// commandOf is the SQL command of an action kind.
func commandOf(kind string) string {
	switch kind {
	case ActSelect, ActEnrol, ActPromote:
		return "SELECT"
	case ActInsert, ActInsertOther:
		return "INSERT"
	case ActUpdate, ActUpdateOther, ActReown:
		return "UPDATE"
	case ActDelete, ActDeleteOther:
		return "DELETE"
	}
	return ""
}

// clientValueReads read each relation whose policies read a client-controlled value again, as
// anon (headers) and user A, with each value to try set.
func (o *observer) clientValueReads() []*action {
	var out []*action
	for _, r := range o.s.Relations {
		if r.Related {
			continue
		}
		for _, c := range r.clientValues(o.sampleValues(r), o.plans[r.Ident]) {
			for _, p := range []Persona{anon, userA} {
				if (c.Kind == metadata || c.Kind == secondFactor) && !p.signedIn() {
					continue
				}
				for _, v := range c.Values {
					if a := selectAction(p.with(c, v), r); a != nil {
						a.value, a.policy = v, c.Policy
						out = append(out, a)
					}
				}
			}
		}
	}
	return out
}
