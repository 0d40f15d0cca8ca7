package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// The actions run in two rounds, one pipeline each: the first tries every action of every
// persona; the second what the first's results call for (a signed-in user adding himself to a
// membership table and reading again, the same reads with each client-controlled value set, a
// direct read of the tables a function read, the policy that let each read through).

// maxActions bounds one round; the actions past it are noted, not run.
const maxActions = 1500

// done is an action run, and what it did.
type done struct {
	a       *action
	ok      bool
	err     *pgconn.PgError
	rows    int64   // the rows the last step read, returned or changed
	counts  []int64 // a select's: all, A's, B's, C's
	effects []Effect
	marker  string // what a hostile value ran ("" nothing)
	role    string // the role a call's request ended as ("" when not read)
	results []result
}

// act runs the two rounds.
func (o *observer) act(ctx context.Context) error {
	deadline := time.Now().Add(o.budget())
	first := o.firstRound()
	got, err := o.run(ctx, first, deadline)
	if err != nil {
		return err
	}
	o.done = append(o.done, got...)
	if err := o.readPlans(ctx, deadline); err != nil {
		return err
	}
	second := o.secondRound()
	got, err = o.run(ctx, second, deadline)
	if err != nil {
		return err
	}
	o.done = append(o.done, got...)
	var read []string
	for _, d := range got {
		if d.a.kind == ActDirect {
			read = append(read, d.a.value)
		}
	}
	return o.countTables(ctx, read)
}

// budget is the time the actions may take.
func (o *observer) budget() time.Duration {
	if o.in.Budget > 0 {
		return o.in.Budget
	}
	return DefaultBudget
}

// firstRound is every action of every persona, but those PostgreSQL refuses whatever the
// request (counted in o.denied).
func (o *observer) firstRound() []*action {
	var all []*action
	for _, p := range Personas() {
		for _, r := range o.s.Relations {
			if r.Related {
				continue
			}
			if a := selectAction(p, r); a != nil {
				all = append(all, a)
			}
			all = append(all, o.writeActions(p, r)...)
			all = append(all, grantActions(p, r)...)
		}
		for _, f := range o.s.Functions {
			all = append(all, o.executeActions(p, f)...)
		}
	}
	var out []*action
	o.denied = 0
	for _, a := range all {
		if a.rel != nil && a.kind != ActGrant && a.rel.denies(a.persona.Role, commandOf(a.kind)) {
			o.denied++
			continue
		}
		out = append(out, a)
	}
	return out
}

// chunk is how many requests go to the server in one pipeline: between two, the observation's
// deadline is checked, so that requests that each run to their timeout cannot hold it long.
const chunk = 50

// run runs acts in chunks, each in one transaction of the observer's, each request in a
// savepoint rolled back, and returns what each did. Actions past maxActions, or once the
// deadline has passed, are noted and not run; the observer's session is not used again once a
// chunk has run past the deadline (o.stopped).
func (o *observer) run(ctx context.Context, acts []*action, deadline time.Time) ([]*done, error) {
	if len(acts) > maxActions {
		o.notes = append(o.notes, fmt.Sprintf("%s not made: over the limit of %d in one round", nounRequests(len(acts)-maxActions), maxActions))
		o.unmade += len(acts) - maxActions
		acts = acts[:maxActions]
	}
	var out []*done
	for len(acts) > 0 {
		if o.stopped || time.Now().After(deadline) {
			o.stopped = true
			o.notes = append(o.notes, fmt.Sprintf("%s not made: the observation's time (%s) ran out", nounRequests(len(acts)), o.budget()))
			o.unmade += len(acts)
			break
		}
		n := min(chunk, len(acts))
		md := metadataOf(acts[0])
		for i := 1; i < n; i++ {
			if metadataOf(acts[i]) != md {
				n = i
				break
			}
		}
		got, err := o.runWithMetadata(ctx, acts[:n], md, deadline)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
		acts = acts[n:]
	}
	return out, nil
}

// metadataOf is the user_metadata the persona of a sets, as JSON, or "" when it sets none.
func metadataOf(a *action) string {
	if !a.persona.signedIn() || a.persona.Metadata == nil {
		return ""
	}
	b, _ := json.Marshal(a.persona.Metadata)
	return string(b)
}

// The user's own row of auth.users while his requests set his user_metadata: GoTrue writes what
// a user sets (supabase.auth.updateUser({data})) into raw_user_meta_data, merged into what is
// there, and the next JWT carries it, so a policy that reads the column sees the value as one
// that reads the claim does. On the superuser's session, pg_catalog-qualified: no object of a
// migration's can be on auth.users (only its owner, supabase_auth_admin, could give it a
// trigger, rule or policy).
const (
	metadataReadSQL = `SELECT u.raw_user_meta_data::pg_catalog.text FROM auth.users u WHERE u.id OPERATOR(pg_catalog.=) $1::pg_catalog.uuid`
	metadataSetSQL  = `UPDATE auth.users SET raw_user_meta_data = CASE WHEN raw_user_meta_data IS NULL THEN $2::pg_catalog.jsonb ELSE raw_user_meta_data OPERATOR(pg_catalog.||) $2::pg_catalog.jsonb END WHERE id OPERATOR(pg_catalog.=) $1::pg_catalog.uuid`
	metadataPutSQL  = `UPDATE auth.users SET raw_user_meta_data = $2::pg_catalog.jsonb WHERE id OPERATOR(pg_catalog.=) $1::pg_catalog.uuid`
)

// runWithMetadata runs acts, whose persona sets the user_metadata md ("" none), with md in the
// user's row of auth.users for as long as they run, and his row as it was afterwards.
func (o *observer) runWithMetadata(ctx context.Context, acts []*action, md string, deadline time.Time) ([]*done, error) {
	if md == "" {
		return o.runChunk(ctx, acts, deadline)
	}
	id := acts[0].persona.ID
	var was *string
	if err := o.c.Admin.QueryRow(ctx, metadataReadSQL, id).Scan(&was); err != nil {
		return nil, fmt.Errorf("reading the user_metadata of %s: %w", acts[0].persona.base(), err)
	}
	if _, err := o.c.Admin.Exec(ctx, metadataSetSQL, id, md); err != nil {
		return nil, fmt.Errorf("setting the user_metadata of %s: %w", acts[0].persona.base(), err)
	}
	got, err := o.runChunk(ctx, acts, deadline)
	if _, rerr := o.c.Admin.Exec(context.WithoutCancel(ctx), metadataPutSQL, id, was); rerr != nil && err == nil {
		err = fmt.Errorf("putting back the user_metadata of %s: %w", acts[0].persona.base(), rerr)
	}
	return got, err
}

// runChunk runs acts in one transaction: one pipeline, one round trip. A chunk cut short by the
// observation's deadline is noted (its requests are lost) and stops the observation.
func (o *observer) runChunk(ctx context.Context, acts []*action, deadline time.Time) ([]*done, error) {
	segs := [][]string{{"BEGIN", "SELECT pg_catalog.set_config('search_path', " + quoteLiteral(o.searchPath()) + ", true), " +
		"pg_catalog.set_config('lock_timeout', '1s', true)", countersFor("anon")}}
	for _, a := range acts {
		seg := append([]string{"SAVEPOINT ledgercheck_request", a.setRequest()}, a.steps...)
		if a.trailed() {
			seg = append(seg, trailerSQL)
		}
		segs = append(segs, seg, []string{"ROLLBACK TO SAVEPOINT ledgercheck_request", countersFor(a.persona.Role)})
	}
	segs = append(segs, []string{"ROLLBACK"})
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	res, err := runSegments(rctx, o.obs.PgConn(), segs)
	if err != nil && ctx.Err() == nil && rctx.Err() != nil {
		o.stopped = true
		o.notes = append(o.notes, fmt.Sprintf("%s not observed: the observation's time (%s) ran out while they ran", nounRequests(len(acts)), o.budget()))
		o.unmade += len(acts)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !res[0][2].ok() {
		return nil, roundError("starting the requests", res[0])
	}
	prev := parseCounters(res[0][2])
	out := make([]*done, len(acts))
	for i, a := range acts {
		seg, rb := res[1+2*i], res[2+2*i]
		if !rb[0].ok() || !rb[1].ok() {
			return nil, roundError("ending a request", rb)
		}
		after := parseCounters(rb[1])
		out[i] = o.outcome(a, seg, diff(prev, after))
		prev = after
	}
	return out, nil
}

// roundError is what failed (what) with the first error among results behind it, for an error
// of ledgercheck's own statements.
func roundError(what string, rs []result) error {
	for _, r := range rs {
		if r.err != nil {
			return fault.Wrapf(r.err, "%s: %s", what, r.err.Message)
		}
	}
	return fmt.Errorf("%s: no result", what)
}

// outcome reads an action's results: seg is SAVEPOINT, the request's settings, its steps and
// (for a call or a hostile value) the trailer.
func (o *observer) outcome(a *action, seg []result, effects []Effect) *done {
	d := &done{a: a, results: seg, ok: true}
	steps := seg[2 : 2+len(a.steps)]
	for _, r := range seg[:2+len(a.steps)] {
		if !r.ok() {
			d.ok, d.err = false, r.err
			break
		}
	}
	if d.ok {
		last := steps[len(steps)-1]
		d.rows = affected(last)
		if a.kind == ActPromote { // the rows read after the update that were not read before
			d.rows = newRows(steps[0], last)
		}
		if len(last.rows) == 1 {
			for k := range last.rows[0] {
				n, _ := strconv.ParseInt(last.value(0, k), 10, 64)
				d.counts = append(d.counts, n)
			}
		}
		if a.trailed() && len(seg) > 2+len(a.steps) {
			t := seg[2+len(a.steps)]
			if a.hostile {
				d.marker = t.value(0, 0)
			}
			d.role = t.value(0, 1)
		}
	}
	d.effects = o.sideEffects(a, effects)
	return d
}

// affected is the rows a statement read (a count's value) or changed (its command tag).
func affected(r result) int64 {
	tag := r.tag
	for _, verb := range []string{"INSERT ", "UPDATE ", "DELETE "} {
		if strings.HasPrefix(tag, verb) {
			f := strings.Fields(tag)
			n, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
			return n
		}
	}
	if strings.HasPrefix(tag, "SELECT") && len(r.rows) == 1 {
		n, _ := strconv.ParseInt(r.value(0, 0), 10, 64)
		return n
	}
	return 0
}

// sideEffects are the effects of a that are not its own rows: a write's own table (and a view's
// base tables), a read's own relation and bases are left out; a function call keeps what it
// read and wrote.
func (o *observer) sideEffects(a *action, es []Effect) []Effect {
	own := map[string]bool{}
	if a.rel != nil {
		own[a.rel.Ident] = true
		for _, b := range a.rel.Bases {
			own[b] = true
		}
	}
	if a.via != nil {
		own[a.via.Ident] = true
	}
	if a.fn == nil && a.kind != ActSelect {
		o.cascaded(own)
	}
	var out []Effect
	for _, e := range es {
		if own[e.Table] {
			continue
		}
		if a.fn == nil {
			e.Read = 0 // a select's reads are the relation's own; a write's reads are its checks
			if !e.writes() {
				continue
			}
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(x, y Effect) int { return strings.Compare(x.Table, y.Table) })
	return out
}

// cascaded adds to tables (by identity) the tables whose foreign keys act on a delete or
// update of theirs (ON DELETE CASCADE, SET NULL, ...), transitively: what a persona's own
// delete does to them is the schema's referential action, not a side effect of the file's.
func (o *observer) cascaded(tables map[string]bool) {
	if o.in.Snapshot == nil {
		return
	}
	for changed := true; changed; {
		changed = false
		for _, t := range o.in.Snapshot.Tables {
			ident := display(t.Schema, t.Name)
			if tables[ident] {
				continue
			}
			for _, c := range t.Constraints {
				if c.Type != "foreign key" || !strings.Contains(c.Definition, " ON DELETE ") && !strings.Contains(c.Definition, " ON UPDATE ") {
					continue
				}
				for target := range tables {
					if referencesTable(c.Definition, target, t.Schema) {
						tables[ident] = true
						changed = true
					}
				}
			}
		}
	}
}

// referencesTable reports whether a foreign key's definition (as pg_get_constraintdef prints
// it, unqualified where the reading session's search_path finds the table) references target
// (schema.name), from a table of schema.
func referencesTable(def, target, schema string) bool {
	_, ref, ok := strings.Cut(def, "REFERENCES ")
	if !ok {
		return false
	}
	ref, _, _ = strings.Cut(ref, "(")
	ref = strings.TrimSpace(ref)
	if !strings.Contains(ref, ".") {
		for _, s := range []string{schema, "public"} {
			if display(s, unquote(ref)) == identDisplay(target) {
				return true
			}
		}
		return false
	}
	return identDisplay(ref) == identDisplay(target)
}

// find returns the first action run that matches.
func (o *observer) find(match func(*done) bool) *done {
	for _, d := range o.done {
		if match(d) {
			return d
		}
	}
	return nil
}
