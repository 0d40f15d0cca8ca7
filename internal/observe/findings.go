package observe

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// FindingsInput is what turning observations into findings needs besides them.
type FindingsInput struct {
	// File is the installed migration and Statements its objects' statements: where each
	// finding points (nil: no position).
	File       *pgsql.File
	Statements *locate.Index
	// Before are the observations of the template each model's install started from (nil for
	// a model without one): what a persona could already do with an object the file changed is
	// not the file's doing.
	Before map[string]*Observation
	// Suppressed, when not nil, reports whether a reviewed ledgercheck:ignore of rule covers the
	// statement at pos.
	Suppressed func(rule string, pos finding.Position) bool
}

// Findings turns the observations of the installs under each privilege model into findings:
// one per rule, object and API role (and side effect's table), at the statement that opened
// it, saying under which models it holds when not under all of those observed.
func Findings(in FindingsInput, obs []*Observation) []finding.Finding {
	type agg struct {
		f      fact
		models []string
		whos   []string
	}
	var order []string
	byKey := map[string]*agg{}
	n := 0
	for _, ob := range obs {
		if ob == nil {
			continue
		}
		n++
		before := beforeKeys(in.Before[ob.Model])
		for _, f := range ob.facts() {
			k := f.key()
			if ob.Scope.Existing[f.scope] && before[k] {
				continue // the base already allowed it
			}
			g := byKey[k]
			if g == nil {
				g = &agg{f: f}
				byKey[k] = g
				order = append(order, k)
			}
			if !slices.Contains(g.models, ob.Model) {
				g.models = append(g.models, ob.Model)
			}
			if !slices.Contains(g.whos, f.who) {
				g.whos = append(g.whos, f.who)
			}
		}
	}
	var out []finding.Finding
	for _, k := range order {
		g := byKey[k]
		pos := in.position(g.f.opener)
		if in.Suppressed != nil && in.Suppressed(g.f.rule, pos) {
			continue
		}
		f := finding.Finding{Phase: finding.PhaseAudit, Rule: g.f.rule, Severity: severity(g.f.rule), Pos: pos, Object: g.f.object,
			Message: g.f.message, Detail: g.f.detail}
		if len(g.whos) > 1 {
			f.Message += "; " + others(g.f.who) + " too"
		}
		if len(g.models) < n {
			f.Models = slices.Clone(g.models)
			f.Message += " (only " + strings.Join(mapped(g.models), " and ") + ")"
		}
		out = append(out, f)
	}
	out = append(out, in.incomplete(obs, n)...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pos.Line != out[j].Pos.Line {
			return out[i].Pos.Line < out[j].Pos.Line
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

// incomplete is the finding of observations (of n) whose bounds left requests unmade: what those
// would have shown is unknown, and a file that makes the observation run out of time (functions
// anon may call that each sleep to the request timeout) or past a round's limit can hide there
// what it opens. At the file's start, since no statement alone made it.
func (in FindingsInput) incomplete(obs []*Observation, n int) []finding.Finding {
	unmade := 0
	var models []string
	for _, ob := range obs {
		if ob != nil && ob.Unmade > 0 {
			unmade += ob.Unmade
			models = append(models, ob.Model)
		}
	}
	if unmade == 0 {
		return nil
	}
	pos := in.position(opener{})
	if in.Suppressed != nil && in.Suppressed(RuleObservationIncomplete, pos) {
		return nil
	}
	f := finding.Finding{Phase: finding.PhaseAudit, Rule: RuleObservationIncomplete, Severity: severity(RuleObservationIncomplete), Pos: pos,
		Message: fmt.Sprintf("the observation left %s unmade within its bounds (at most %d a round, %s in all; the notes say which): what they would have shown of access is unknown; make the functions anon and authenticated may call answer within a second, or revoke EXECUTE on those they need not call",
			nounRequests(unmade), maxActions, DefaultBudget)}
	if len(models) < n {
		f.Models = models
		f.Message += " (only " + strings.Join(mapped(models), " and ") + ")"
	}
	return []finding.Finding{f}
}

// others names the API role a finding's message does not: a fact of anon's that signed-in
// users share, or the reverse.
func others(who string) string {
	if who == "anon" {
		return "signed-in users"
	}
	return "anon"
}

// beforeKeys are the keys of the facts of a base's observation.
func beforeKeys(ob *Observation) map[string]bool {
	out := map[string]bool{}
	if ob == nil {
		return out
	}
	for _, f := range ob.facts() {
		out[f.key()] = true
	}
	return out
}

// where says where a finding holds when not under every model observed.
var where = map[string]string{
	"new-defaults": "on hosted projects",
	"old-defaults": "on self-hosted projects, with the old default privileges",
}

func mapped(models []string) []string {
	var out []string
	for _, m := range models {
		out = append(out, where[m])
	}
	return out
}

// position finds the statement of the file that opened it: op, else its alternatives in order,
// else the file's first line.
func (in FindingsInput) position(op opener) finding.Position {
	if in.File == nil {
		return finding.Position{}
	}
	ix := in.Statements
	if ix == nil {
		ix = locate.New(in.File)
	}
	for _, o := range append([]opener{op}, op.alts...) {
		if o.object == "" {
			continue
		}
		if o.attr != "" {
			if pos, ok := ix.Setter(o.kind, o.object, o.attr); ok {
				return pos
			}
			continue
		}
		if pos, ok := ix.Statement(o.kind, o.object, ""); ok {
			return pos
		}
	}
	return finding.Position{File: in.File.Name, Line: 1, Col: 1}
}

// openerOf is what let role's command cmd on r through: under row level security, the
// permissive policy that let the most rows through (for a read, measured per policy), else the
// grant to the role (or to PUBLIC), the statement that turned row level security off, the
// relation's creation.
func (ob *Observation) openerOf(r *Relation, role, cmd string, d *done) opener {
	grants := []opener{
		{kind: kindOf(r), object: r.Ident, attr: "acl:" + role},
		{kind: kindOf(r), object: r.Ident, attr: "acl:public"},
	}
	base := opener{kind: kindOf(r), object: r.Ident}
	if !r.RLS || kindOf(r) == "view" {
		alts := append(grants[1:], opener{kind: kindOf(r), object: r.Ident, attr: "rls"}, base)
		return opener{kind: grants[0].kind, object: grants[0].object, attr: grants[0].attr, alts: alts}
	}
	p, ok := ob.openingPolicy(r, role, cmd, d)
	if !ok {
		return opener{kind: grants[0].kind, object: grants[0].object, attr: grants[0].attr, alts: append(grants[1:], base)}
	}
	return opener{kind: "policy", object: quoteIdentName(p.Name) + " on " + r.Ident, alts: append(grants, base)}
}

// openingPolicy is the permissive policy of r for role and cmd that let d's rows through: the
// only one, or the one whose USING alone let the most rows through for the persona.
func (ob *Observation) openingPolicy(r *Relation, role, cmd string, d *done) (Policy, bool) {
	ps := r.permissive(role, cmd)
	switch len(ps) {
	case 0:
		return Policy{}, false
	case 1:
		return ps[0], true
	}
	best, most := ps[0], int64(-1)
	for _, p := range ps {
		for _, x := range ob.done {
			if x.a.kind == actPolicy && x.ok && x.a.rel == r && x.a.persona.Name == d.a.persona.Name && x.a.value == p.Name+"\x00"+d.a.kind && x.rows > most {
				best, most = p, x.rows
			}
		}
	}
	return best, true
}

// policyDetail is the condition of the policy that opened role's cmd on r, for a finding's
// detail ("" when no policy did).
func (ob *Observation) policyDetail(r *Relation, role, cmd string, d *done) string {
	if !r.RLS {
		return ""
	}
	p, ok := ob.openingPolicy(r, role, cmd, d)
	if !ok {
		return ""
	}
	expr, clause := p.Using, "USING"
	if cmd == "INSERT" && p.Check != "" || expr == "" {
		expr, clause = p.Check, "WITH CHECK"
	}
	if expr == "" {
		return fmt.Sprintf("policy %s: no condition", p.Name)
	}
	return fmt.Sprintf("policy %s: %s %s", p.Name, clause, expr)
}

// memberOpener is what let role write (cmd: INSERT, UPDATE) a row of membership table m (which
// r's policies read): m's permissive policy for cmd, else r's policy that reads m, else m's grant
// or creation.
func (ob *Observation) memberOpener(m *Relation, role, cmd string, r *Relation) opener {
	var alts []opener
	for _, p := range m.permissive(role, cmd) {
		alts = append(alts, opener{kind: "policy", object: quoteIdentName(p.Name) + " on " + m.Ident})
	}
	for _, p := range r.Policies {
		if slices.Contains(p.Reads, m.Ident) {
			alts = append(alts, opener{kind: "policy", object: quoteIdentName(p.Name) + " on " + r.Ident})
		}
	}
	alts = append(alts, opener{kind: kindOf(m), object: m.Ident, attr: "acl:" + role}, opener{kind: kindOf(m), object: m.Ident})
	return opener{alts: alts}
}

// effectOpener is what ran a's side effect: the function called, or the triggers and rules of
// the relation written (the file's), else the relation.
func (ob *Observation) effectOpener(a *action) opener {
	if a.fn != nil {
		return opener{kind: "function", object: a.fn.Ident}
	}
	var alts []opener
	for _, t := range a.rel.Triggers {
		alts = append(alts, opener{kind: "trigger", object: quoteIdentName(t) + " on " + a.rel.Ident})
	}
	for _, r := range a.rel.Rules {
		alts = append(alts, opener{kind: "rule", object: quoteIdentName(r) + " on " + a.rel.Ident})
	}
	alts = append(alts, opener{kind: kindOf(a.rel), object: a.rel.Ident})
	return opener{alts: alts}
}
