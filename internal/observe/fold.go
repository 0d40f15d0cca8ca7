package observe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/audit"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/lint"
)

// One fact, one finding: what a persona was seen doing is often what a catalog rule of the
// installed audit (internal/audit) or a static rule of lint already says from the policies and
// grants. The catalog's or lint's finding then stands for both, and says what was observed; the
// observed finding is reported alone where no rule saw it. Where the catalog says an API role
// reads every row and no persona read any of the rows present, the observation decides: the
// catalog's finding is dropped, with a note.

// sameFact maps an observed rule to the catalog rules that state the same fact on the same
// object.
var sameFact = map[string][]string{
	RuleAnonReadsRows: {audit.RuleRLSDisabledInPublic, audit.RuleAPIReadsEveryRow, audit.RuleSecurityDefinerView, audit.RuleAuthUsersExposed,
		audit.RuleMaterializedViewInAPI, audit.RuleForeignTableInAPI, audit.RuleDefinerExecutableByAnon},
	RuleUserReadsEveryRow:    {audit.RuleAPIReadsEveryRow},
	RuleUserReadsOthersRows:  {audit.RuleAPIReadsEveryRow, audit.RuleDefinerExecutableByAuthenticated},
	RuleAnonWritesRows:       {audit.RuleAPIWritesEveryRow, audit.RulePolicyAlwaysTrue, audit.RuleRLSDisabledInPublic, audit.RuleSecurityDefinerView},
	RuleUserWritesOthersRows: {audit.RuleAPIWritesEveryRow, audit.RulePolicyAlwaysTrue, audit.RuleSecurityDefinerView},
	// What a definer function anon or a signed-in user may call does is the catalog's finding
	// that they may call it.
	RuleOutboundRequest:   {audit.RuleDefinerExecutableByAnon, audit.RuleDefinerExecutableByAuthenticated},
	RuleRequestSideEffect: {audit.RuleDefinerExecutableByAnon, audit.RuleDefinerExecutableByAuthenticated, audit.RuleSecurityDefinerView},
}

// sameStatic maps an observed rule to the static rules of lint that stand for the same fact on
// the same table (a table without row level security that anon reads or writes).
var sameStatic = map[string][]string{
	RuleAnonReadsRows:       {lint.TableRLSDisabled, lint.SecurityDefinerPublicExecute},
	RuleAnonWritesRows:      {lint.TableRLSDisabled},
	RuleUserReadsOthersRows: {lint.SecurityDefinerPublicExecute},
	RuleOutboundRequest:     {lint.SecurityDefinerPublicExecute},
	RuleRequestSideEffect:   {lint.SecurityDefinerPublicExecute},
}

// readClaims are the catalog rules that say an API role reads every row: an observation in
// which no persona read any row contradicts them.
var readClaims = map[string]bool{audit.RuleAPIReadsEveryRow: true, audit.RuleRLSDisabledInPublic: true}

// Folded is what Fold returns.
type Folded struct {
	// Findings are the catalog's findings (with what was observed of each in its detail), less
	// those the observation contradicts, then the observed findings no other finding stands for.
	Findings []finding.Finding
	// Confirmed are lint's findings the observation confirms.
	Confirmed []Confirmation
	// Notes say which catalog findings the observation contradicted.
	Notes []string
}

// Confirmation is a lint finding (its index in the static findings) that an observed finding
// confirms, under Models (nil: every model observed).
type Confirmation struct {
	Static   int
	Observed string // the observed finding's message
	Models   []string
}

// Fold folds the observed findings into the catalog's (catalog) and lint's (static), as the
// observations obs saw them.
func Fold(catalog, static, observed []finding.Finding, obs []*Observation) Folded {
	var out Folded
	kept := slices.Clone(catalog)
	var drop []int
	for i, c := range kept {
		if readClaims[c.Rule] && noneRead(obs, c.Object) {
			drop = append(drop, i)
			out.Notes = append(out.Notes, fmt.Sprintf("not reported: %s says %s, but no persona read any of its rows present (the access observation decides)", c.Rule, c.Object))
		}
	}
	for j := len(drop) - 1; j >= 0; j-- {
		kept = slices.Delete(kept, drop[j], drop[j]+1)
	}
	for _, o := range observed {
		if i := slices.IndexFunc(kept, func(c finding.Finding) bool {
			return sameObject(c.Object, o.Object) && slices.Contains(sameFact[o.Rule], c.Rule)
		}); i >= 0 {
			kept[i].Detail = joinLines(kept[i].Detail, "observed: "+o.Message)
			continue
		}
		if i := slices.IndexFunc(static, func(s finding.Finding) bool {
			return sameObject(s.Object, o.Object) && slices.Contains(sameStatic[o.Rule], s.Rule)
		}); i >= 0 {
			out.Confirmed = append(out.Confirmed, Confirmation{Static: i, Observed: o.Message, Models: o.Models})
			continue
		}
		kept = append(kept, o)
	}
	out.Findings = kept
	return out
}

// noneRead reports whether the observations tried reading object as anon and as a signed-in
// user, and none read any row: each was refused permission, or read none of the rows present.
func noneRead(obs []*Observation, object string) bool {
	tried := false
	for _, ob := range obs {
		if ob == nil {
			continue
		}
		for _, c := range ob.Cells {
			if c.Action != ActSelect || c.Object != object || c.Value != "" {
				continue
			}
			refused := !c.Allowed && strings.HasPrefix(c.Error, "permission denied")
			if !refused && (!c.Allowed || c.Present <= 0 || c.Rows > 0) {
				return false
			}
			tried = true
		}
	}
	return tried
}

// sameObject reports whether two findings' objects ("table public.t", lint's "table t") name
// one relation or function.
func sameObject(a, b string) bool {
	norm := func(s string) string {
		if i := strings.LastIndex(s, " on "); strings.HasPrefix(s, "policy ") && i >= 0 {
			s = "table " + s[i+len(" on "):] // a policy's fact is its table's
		}
		kind, name, _ := strings.Cut(s, " ")
		if kind == "materialized" || kind == "foreign" || kind == "partitioned" {
			_, name, _ = strings.Cut(name, " ")
			kind = "table"
		}
		if kind == "view" || kind == "aggregate" || kind == "procedure" {
			kind = map[string]string{"view": "table", "aggregate": "function", "procedure": "function"}[kind]
		}
		if schema, _ := splitLast(strings.Split(name, "(")[0]); schema == "" {
			name = "public." + name
		}
		if kind == "function" { // by name and number of arguments, as lint and the catalog spell types apart
			fn, args, _ := strings.Cut(name, "(")
			args = strings.TrimSuffix(args, ")")
			n := 0
			if strings.TrimSpace(args) != "" {
				n = strings.Count(args, ",") + 1
			}
			name = fmt.Sprintf("%s/%d", fn, n)
		}
		return kind + " " + name
	}
	return norm(a) == norm(b)
}

// joinLines joins two details.
func joinLines(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}
