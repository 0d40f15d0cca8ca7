package lint

import (
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// Rule is one lint rule: its entry in the catalog, registered as every phase's rules are, with
// rule.Register and its phase (lint), and the check that reports it. The entry is what
// rule.Register returned (id, phase, severity); its documentation is rule.Lookup's. The default severity may
// be overridden by configuration; the explain text cites the equivalent squawk or splinter rule
// where there is one.
type Rule struct {
	rule.Rule
	// Check reports the rule's findings on a pass. Rules without Check (parse-error and the
	// suppression rules) are reported by [Run] itself.
	Check func(p *Pass)
}

var registry = map[string]*Rule{}

// sortedRules is [Rules]' list, sorted once (register clears it).
var sortedRules atomic.Pointer[[]*Rule]

// register adds r, whose catalog entry rule.Register returned, to the rules lint runs, and
// returns it. It panics on a rule of another phase, or one the catalog does not hold.
func register(r *Rule) *Rule {
	if r.Phase != finding.PhaseLint {
		panic(fmt.Sprintf("lint: rule %s has phase %q", r.ID, r.Phase))
	}
	if _, ok := rule.Registered(r.ID); !ok {
		panic(fmt.Sprintf("lint: rule %s is not in the catalog: register it with rule.Register", r.ID))
	}
	registry[r.ID] = r
	sortedRules.Store(nil)
	return r
}

// Rules returns every lint rule, sorted by id (the catalog, internal/rule, has every phase's).
func Rules() []*Rule {
	if p := sortedRules.Load(); p != nil {
		return slices.Clone(*p)
	}
	out := make([]*Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	sortedRules.Store(&out)
	return slices.Clone(out)
}

// Lookup returns the rule with the given id.
func Lookup(id string) (*Rule, bool) {
	r, ok := registry[id]
	return r, ok
}

// IDs returns the ids of every registered rule, sorted.
func IDs() []string {
	var ids []string
	for _, r := range Rules() {
		ids = append(ids, r.ID)
	}
	return ids
}

// Options are per-run settings given on the command line.
type Options struct {
	// Dim, when positive, is the dimension every vector(N), halfvec(N) and sparsevec(N) in the
	// file must have.
	Dim int
	// Postgres is the PostgreSQL major version the file is checked for (0: 15, the default): a
	// syntax error says whether that version would reject the file, or only ledgercheck's
	// parser might (a version newer than [pgsql.GrammarVersion]).
	Postgres int
}

// Pass is what a rule's Check receives: the file, the configuration and what the file owns.
type Pass struct {
	File    *pgsql.File
	Config  Config
	Options Options
	// Own is the set of objects the file creates.
	Own *Ownership

	rule     *Rule
	findings *[]finding.Finding
	ops, top []*pgsql.Op
	alterFns map[string][]*pgsql.Op
	privs    []*privObject
}

// Report records a finding of the current rule at pos. obj names the object concerned (may be
// empty).
func (p *Pass) Report(pos finding.Position, obj string, format string, args ...any) {
	*p.findings = append(*p.findings, finding.Finding{
		Phase: finding.PhaseLint, Rule: p.rule.ID, Severity: p.rule.Severity,
		Pos: pos, Message: fmt.Sprintf(format, args...), Object: obj,
	})
}

// TopLevel returns the file's top-level ops.
func (p *Pass) TopLevel() []*pgsql.Op {
	if p.top == nil {
		p.top = make([]*pgsql.Op, 0, len(p.File.Stmts))
		for i := range p.File.Ops {
			if p.File.Ops[i].Context == pgsql.TopLevel {
				p.top = append(p.top, &p.File.Ops[i])
			}
		}
	}
	return p.top
}

// Ops returns all ops, nested ones included.
func (p *Pass) Ops() []*pgsql.Op {
	if p.ops == nil {
		p.ops = make([]*pgsql.Op, len(p.File.Ops))
		for i := range p.File.Ops {
			p.ops[i] = &p.File.Ops[i]
		}
	}
	return p.ops
}

// byName indexes ops by the bare names (without schema) of the objects they act on, and of the
// tables of policies, so that rules looking for "the GRANT on this table" are not quadratic.
func (p *Pass) byName(keep func(op *pgsql.Op) bool) map[string][]*pgsql.Op {
	idx := map[string][]*pgsql.Op{}
	for _, op := range p.Ops() {
		if !keep(op) {
			continue
		}
		seen := map[string]bool{}
		for _, o := range op.Objects {
			for _, n := range []string{o.Name.Name, o.Table.Name} {
				if n != "" && !seen[n] {
					seen[n] = true
					idx[n] = append(idx[n], op)
				}
			}
		}
	}
	return idx
}

// where describes the context of an op for messages ("", " in a function body", ...).
func where(op *pgsql.Op) string { return contextWhere(op.Context, op.Function) }

// jobWhere describes where a pg_cron job's call is for messages ("" at top level).
func jobWhere(j pgsql.Job) string { return contextWhere(j.Context, pgsql.Name{}) }

// contextWhere describes a context for messages; fn is the function whose body it is, if known.
func contextWhere(ctx pgsql.Context, fn pgsql.Name) string {
	switch ctx {
	case pgsql.InFunction:
		if fn.Name != "" {
			return " in the body of function " + fn.String()
		}
		return " in a function body"
	case pgsql.InDo:
		return " in a DO block"
	case pgsql.InExecute:
		return " in SQL run by EXECUTE"
	case pgsql.InJob:
		return " in the command of a pg_cron job"
	}
	return ""
}
