package observe

import (
	"context"
	"strings"
	"time"
)

// readPlans asks PostgreSQL, as anon and user A would request them, for the plan of a read of
// each relation one of whose policies for the persona's role reads the request (the JWT, a
// setting) or calls a function outside pg_catalog and auth, and keeps the plans' text by
// relation (o.plans). A plan shows the policies' conditions as the server evaluates them:
// constants folded ('user_' || 'metadata' becomes 'user_metadata') and SQL helpers inlined (a
// helper's ->> k becomes ->> 'team'), so the keys and values [Relation.clientValues] tries come
// from it too. Each EXPLAIN runs in a request's savepoint, as the requests do, and is rolled back;
// one the server rejects is skipped.
func (o *observer) readPlans(ctx context.Context, deadline time.Time) error {
	type ask struct {
		rel *Relation
		a   *action
	}
	var asks []ask
	for _, r := range o.s.Relations {
		if r.Related {
			continue
		}
		for _, p := range []Persona{anon, userA} {
			if !r.readsRequest(p.Role) {
				continue
			}
			if a := selectAction(p, r); a != nil {
				asks = append(asks, ask{r, a})
			}
		}
	}
	if len(asks) == 0 || o.stopped || time.Now().After(deadline) {
		return nil
	}
	segs := [][]string{{"BEGIN", "SELECT pg_catalog.set_config('search_path', " + quoteLiteral(o.searchPath()) + ", true)"}}
	for _, q := range asks {
		segs = append(segs, []string{"SAVEPOINT ledgercheck_request", q.a.setRequest(), "EXPLAIN (VERBOSE, COSTS OFF) " + q.a.steps[len(q.a.steps)-1]},
			[]string{"ROLLBACK TO SAVEPOINT ledgercheck_request"})
	}
	segs = append(segs, []string{"ROLLBACK"})
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	res, err := runSegments(rctx, o.obs.PgConn(), segs)
	if err != nil && ctx.Err() == nil && rctx.Err() != nil {
		o.stopped = true
		return nil
	}
	if err != nil {
		return err
	}
	if !res[0][1].ok() {
		return roundError("starting the plans", res[0])
	}
	if o.plans == nil {
		o.plans = map[string]string{}
	}
	for i, q := range asks {
		seg, rb := res[1+2*i], res[2+2*i]
		if !rb[0].ok() {
			return roundError("ending a plan", rb)
		}
		if !seg[2].ok() {
			continue
		}
		var b strings.Builder
		for j := range seg[2].rows {
			b.WriteString(seg[2].value(j, 0))
			b.WriteByte('\n')
		}
		o.plans[q.rel.Ident] += b.String()
	}
	return nil
}

// readsRequest reports whether a policy of r that applies to role's reads reads the request (auth.jwt(), a current_setting) or calls a function outside pg_catalog and
// auth, which its plan may show inlined.
func (r *Relation) readsRequest(role string) bool {
	for _, p := range r.Policies {
		if p.readsRequest() && p.applies(role, "SELECT") {
			return true
		}
	}
	return false
}

// readsRequest reports whether p's conditions read the request (auth.jwt(), a current_setting)
// or call a function outside pg_catalog and auth.
func (p Policy) readsRequest() bool {
	text := p.Using + p.Check
	return strings.Contains(text, "jwt") || strings.Contains(text, "current_setting") || p.Calls != ""
}
