package observe

import (
	"context"
	"strings"
	"time"
)

// actPlan is an internal action: the plan PostgreSQL makes of a persona's read (readPlans).
const actPlan = "plan of a read"

// readPlans asks PostgreSQL, as anon and user A would request them, for the plan of a read of
// each relation one of whose policies for the persona's role reads the request (the JWT, a
// setting) or calls a function outside pg_catalog and auth, and keeps the plans' text by
// relation (o.plans). A plan shows the policies' conditions as the server evaluates them:
// constants folded ('user_' || 'metadata' becomes 'user_metadata') and SQL helpers inlined (a
// helper's ->> k becomes ->> 'team'), so the keys and values [Relation.clientValues] tries come
// from it too. Each EXPLAIN runs in a request's savepoint, as the requests do, and is rolled back;
// one the server rejects is skipped. They are requests like the others (o.run), kept out of
// the observation's cells and facts.
func (o *observer) readPlans(ctx context.Context, deadline time.Time) error {
	var asks []*action
	for _, r := range o.s.Relations {
		if r.Related {
			continue
		}
		for _, p := range []Persona{anon, userA} {
			if !r.readsRequest(p.Role) {
				continue
			}
			if a := selectAction(p, r); a != nil {
				a.kind, a.steps = actPlan, []string{"EXPLAIN (VERBOSE, COSTS OFF) " + a.steps[len(a.steps)-1]}
				asks = append(asks, a)
			}
		}
	}
	if len(asks) == 0 {
		return nil
	}
	got, err := o.run(ctx, asks, deadline)
	if err != nil {
		return err
	}
	if o.plans == nil {
		o.plans = map[string]string{}
	}
	for _, d := range got {
		if !d.ok {
			continue
		}
		var b strings.Builder
		plan := d.results[2]
		for j := range plan.rows {
			b.WriteString(plan.value(j, 0))
			b.WriteByte('\n')
		}
		o.plans[d.a.rel.Ident] += b.String()
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
