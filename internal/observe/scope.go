package observe

import (
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// Scope is what the observation looks at: the relations and functions the file created or
// changed (a policy, trigger, rule, constraint, column or grant brings its relation), the tables
// it added to the realtime publication, and the exposed schemas, where the Data API reaches
// them.
type Scope struct {
	Exposed   []string
	Relations []string // schema.name, as the footprint names them
	Functions []string // schema.name(argument types)
	Realtime  []string // tables the file added to supabase_realtime
	// Existing are the relations and functions of the scope that existed before the file (it
	// changed them): what they already allowed is not the file's doing.
	Existing map[string]bool
	// All observes every relation and function of the exposed schemas (a template's base
	// observation, see [BaseScope]) instead of the lists.
	All bool
	// Granted are the existing relations whose privileges the file changed for an API role
	// (relation -> role -> true).
	Granted map[string]map[string]bool

	createdRels []string
}

// realtime is the publication the Realtime server streams changes of.
const realtime = "supabase_realtime"

// ScopeOf is the scope of a footprint, in the exposed schemas.
func ScopeOf(fp *introspect.Footprint, exposed []string) Scope {
	sc := Scope{Exposed: exposed, Existing: map[string]bool{}}
	if fp == nil {
		return sc.normal()
	}
	for _, o := range fp.Created {
		sc.add(o.Kind, o.Object, false)
		if o.Kind == introspect.KindPublication && o.Object == realtime {
			for _, f := range o.Facts {
				if t, ok := strings.CutPrefix(f.Attr, "table:"); ok {
					sc.Realtime = append(sc.Realtime, t)
				}
			}
		}
	}
	for _, c := range fp.Changed {
		sc.add(c.Kind, c.Object, true)
		if role, ok := strings.CutPrefix(c.Attr, "acl:"); ok && slices.Contains(apiRoles, role) && (c.Kind == introspect.KindTable || c.Kind == introspect.KindView) {
			if sc.Granted == nil {
				sc.Granted = map[string]map[string]bool{}
			}
			if sc.Granted[c.Object] == nil {
				sc.Granted[c.Object] = map[string]bool{}
			}
			sc.Granted[c.Object][role] = true
		}
		if c.Kind == introspect.KindPublication && c.Object == realtime && c.After != "" {
			if t, ok := strings.CutPrefix(c.Attr, "table:"); ok {
				sc.Realtime = append(sc.Realtime, t)
			}
		}
	}
	return sc.normal()
}

// add adds what the object of kind brings to the scope; changed says the object existed before.
func (sc *Scope) add(kind, object string, changed bool) {
	rel := ""
	switch kind {
	case introspect.KindTable, introspect.KindView:
		rel = object
		if !changed {
			sc.createdRels = append(sc.createdRels, rel)
		}
	case introspect.KindPolicy, introspect.KindTrigger, introspect.KindRule, introspect.KindConstraint:
		if i := strings.LastIndex(object, " on "); i >= 0 {
			rel = object[i+len(" on "):]
		}
	case introspect.KindColumn:
		rel, _ = splitLast(object)
	case introspect.KindFunction:
		sc.Functions = append(sc.Functions, object)
		if changed {
			sc.Existing[object] = true
		}
		return
	}
	if rel != "" {
		sc.Relations = append(sc.Relations, rel)
	}
}

// normal sorts and dedupes the lists; a relation is an existing one unless the file created it.
func (sc Scope) normal() Scope {
	for _, l := range []*[]string{&sc.Relations, &sc.Functions, &sc.Realtime} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
		if *l == nil {
			*l = []string{}
		}
	}
	for _, rel := range append(slices.Clone(sc.Relations), sc.Realtime...) {
		if !slices.Contains(sc.createdRels, rel) {
			sc.Existing[rel] = true
		}
	}
	sc.createdRels = nil
	return sc
}

// Empty reports whether the scope holds nothing to observe.
func (sc Scope) Empty() bool {
	return !sc.All && len(sc.Relations)+len(sc.Functions)+len(sc.Realtime) == 0
}

// BaseScope is the scope of a base's observation: everything of the exposed schemas, what an
// install's existing objects are compared with.
func BaseScope(exposed []string) Scope {
	return Scope{Exposed: exposed, All: true, Existing: map[string]bool{}}.normal()
}

// NeedsBase reports whether a finding of the observations concerns an object that existed
// before the file: only then does what the base allowed matter.
func NeedsBase(obs []*Observation) bool {
	for _, ob := range obs {
		if ob == nil {
			continue
		}
		for _, f := range ob.facts() {
			if ob.Scope.Existing[f.scope] {
				return true
			}
		}
	}
	return false
}

// splitLast splits a dotted identity at its last dot outside double quotes ("public.t.c" is
// "public.t" and "c").
func splitLast(s string) (string, string) {
	quoted := false
	last := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case '.':
			if !quoted {
				last = i
			}
		}
	}
	if last < 0 {
		return "", s
	}
	return s[:last], s[last+1:]
}

// GraphQL returns, for each API role, the relations of the surface it may select from (some
// column of), that the file created or granted it: what pg_graphql, where it is enabled, publishes in the schema anyone introspects,
// their names and columns, whatever row level security then lets through (splinter's 0026 for
// anon, 0027 for authenticated). pg_graphql is not installable in the scratch environment: this
// is read from the privileges, not observed.
func (ob *Observation) GraphQL() map[string][]string {
	out := map[string][]string{}
	if ob.Surface == nil {
		return out
	}
	for _, r := range ob.Surface.Relations {
		if r.Related || !slices.Contains(ob.Scope.Exposed, r.Schema) {
			continue
		}
		for _, role := range apiRoles {
			if ob.Scope.Existing[r.Ident] && !ob.Scope.Granted[r.Ident][role] {
				continue // what the base already published
			}
			if r.Priv[role].Select || len(r.columns(role, "SELECT")) > 0 {
				out[role] = append(out[role], r.Object())
			}
		}
	}
	return out
}
