package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// UndeclaredChange is the id of the rule below.
const UndeclaredChange = "undeclared-change"

var ruleUndeclaredChange = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: UndeclaredChange, Severity: finding.SevError,
	}),
})

// CatalogChange is one change that installing a file made to an object that existed before it
// ran, as read from the catalog (see ledgercheck/crosscheck, which derives them from a footprint).
type CatalogChange struct {
	// Target is the object as the static rules name it: "table public.thoughts", "function
	// public.upsert_thought", "role service_role", or for an object attached to a table
	// "trigger t on public.agent_memories" (also policy, rule, index). Columns and constraints
	// are changes to their table.
	Target string
	// Verb is what happened: create (attached to the table), alter, drop, grant (a privilege or
	// membership change) or comment.
	Verb pgsql.Verb
	// Detail says what changed, for the message: "column note added", "acl:anon".
	Detail string
}

// CrossCheck compares the changes installing f made to pre-existing objects with the statements of
// f. A change that some statement visibly makes (allowed by configuration or not: the static rules
// have reported it) is accounted for; every other change is an undeclared-change finding, placed at
// the dynamic EXECUTE or the call of one of the file's own functions that most likely made it.
func CrossCheck(f *pgsql.File, cfg Config, changes []CatalogChange) []finding.Finding {
	sev, on := cfg.severity(ruleUndeclaredChange)
	if !on {
		return nil
	}
	own := NewOwnership(f, cfg)
	declared := map[string][]pgsql.Verb{}
	for _, t := range existingTouches(f, cfg, own) {
		k := touchTarget(t.Object)
		declared[k] = append(declared[k], t.Verb)
	}
	defaultPrivs := false
	allIn := map[string]bool{} // schemas of GRANT/REVOKE ... ON ALL ... IN SCHEMA
	for i := range f.Ops {
		if strings.Contains(f.Ops[i].Tag, "DEFAULT PRIVILEGES") {
			defaultPrivs = true
		}
		if g := f.Ops[i].Grant(); g != nil && g.AllInSchema {
			for _, o := range f.Ops[i].Objects {
				allIn[o.Name.Name] = true
			}
		}
	}
	var out []finding.Finding
	seen := map[string]bool{}
	for _, c := range changes {
		if explained(declared[c.Target], c.Verb) || (defaultPrivs && strings.HasPrefix(c.Target, "default privileges")) || c.Verb == pgsql.VerbGrant && allIn[targetSchema(c.Target)] {
			continue
		}
		key := c.Target + "\x00" + string(c.Verb) + "\x00" + c.Detail
		if seen[key] {
			continue
		}
		seen[key] = true
		pos, how := culprit(f, own)
		msg := fmt.Sprintf("installing the file changed %s (%s), which it did not create, but no statement of the file does so visibly", c.Target, describe(c))
		if how != "" {
			msg += "; most likely " + how
		}
		out = append(out, finding.Finding{Phase: finding.PhaseLint, Rule: ruleUndeclaredChange.ID, Severity: sev, Pos: pos, Message: msg, Object: c.Target})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Object < out[j].Object })
	return out
}

func describe(c CatalogChange) string {
	if c.Detail == "" {
		return string(c.Verb)
	}
	return string(c.Verb) + ": " + c.Detail
}

// touchTarget names a statically seen touch the way [CatalogChange.Target] does.
func touchTarget(o pgsql.Object) string {
	switch o.Kind {
	case pgsql.KindColumn, pgsql.KindConstraint:
		return string(pgsql.KindTable) + " " + o.Table.String()
	case pgsql.KindPolicy, pgsql.KindTrigger, pgsql.KindRule, pgsql.KindIndex:
		return string(o.Kind) + " " + pgsql.QuoteIdent(o.Name.Name) + " on " + o.Table.String()
	case pgsql.KindMatView:
		return string(pgsql.KindView) + " " + o.Name.String()
	case pgsql.KindProcedure:
		return string(pgsql.KindFunction) + " " + o.Name.String()
	}
	return o.String()
}

// explained reports whether a statement with one of verbs accounts for a catalog change of verb v.
func explained(verbs []pgsql.Verb, v pgsql.Verb) bool {
	for _, have := range verbs {
		switch v {
		case pgsql.VerbGrant:
			if have == pgsql.VerbGrant || have == pgsql.VerbRevoke {
				return true
			}
		case pgsql.VerbAlter:
			if have == pgsql.VerbAlter || have == pgsql.VerbRename || have == pgsql.VerbCreate {
				return true
			}
		default:
			if have == v {
				return true
			}
		}
	}
	return false
}

// culprit finds the statement that most likely made a change no statement shows: the first
// EXECUTE of SQL built at run time, else the first top-level call of a function the file creates.
func culprit(f *pgsql.File, own *Ownership) (finding.Position, string) {
	for i := range f.Ops {
		op := &f.Ops[i]
		if op.Dynamic() != nil && !op.Dynamic().Literal {
			return op.At(), "the EXECUTE of SQL built at run time" + where(op) + " at " + op.At().String()
		}
	}
	for i := range f.Ops {
		op := &f.Ops[i]
		if op.Context != pgsql.TopLevel {
			continue
		}
		for _, c := range op.Calls {
			if own.Owns(pgsql.Object{Kind: pgsql.KindFunction, Name: c.Name}, op.SearchPath) {
				return c.Pos, "the call of " + c.Name.String() + " at " + c.Pos.String()
			}
		}
	}
	return finding.Position{File: f.Name, Line: 1, Col: 1}, ""
}

// targetSchema returns the schema of a [CatalogChange.Target] such as "table public.thoughts".
func targetSchema(target string) string {
	_, name, _ := strings.Cut(target, " ")
	schema, _, _ := strings.Cut(name, ".")
	return strings.Trim(schema, `"`)
}
