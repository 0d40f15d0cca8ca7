// Package crosscheck joins the two halves of lint: what the static rules saw a migration do to
// objects it did not create, and what installing it actually changed in the catalog (an
// introspect footprint). [Check] turns the footprint's changes to pre-existing objects into
// [lint.CatalogChange] values and reports, through [lint.CrossCheck], those no statement of the
// file shows: SQL built at run time that altered a prerequisite table, a grant changed by dynamic
// SQL.
package crosscheck

import (
	"fmt"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// Check reports the changes in fp (the footprint of installing f over the prerequisites) to
// objects that existed before f ran and that no statement of f visibly makes.
func Check(f *pgsql.File, cfg lint.Config, fp *introspect.Footprint) []finding.Finding {
	return lint.CrossCheck(f, cfg, Changes(fp))
}

// Changes lists what fp changed on objects that existed before: attributes that changed, objects
// that were dropped, and columns, constraints, indexes, triggers, policies and rules created on
// tables that existed before.
func Changes(fp *introspect.Footprint) []lint.CatalogChange {
	created := map[string]bool{}
	for _, o := range fp.Created {
		switch o.Kind {
		case introspect.KindTable, introspect.KindView:
			created[o.Object] = true
		}
	}
	var out []lint.CatalogChange
	for _, o := range fp.Created {
		switch o.Kind {
		case introspect.KindColumn, introspect.KindConstraint:
			table := tableOf(o.Kind, o.Object)
			if table != "" && !created[table] {
				out = append(out, lint.CatalogChange{Target: "table " + table, Verb: pgsql.VerbAlter, Detail: o.Kind + " " + o.Object + " added"})
			}
		case introspect.KindTrigger, introspect.KindPolicy, introspect.KindRule:
			if name, table, ok := splitOn(o.Object); ok && !created[table] {
				out = append(out, lint.CatalogChange{Target: o.Kind + " " + name + " on " + table, Verb: pgsql.VerbCreate, Detail: "created"})
			}
		case introspect.KindIndex:
			table := factValue(o.Facts, "table")
			if table != "" && !created[table] {
				out = append(out, lint.CatalogChange{Target: "index " + lastPart(o.Object) + " on " + table, Verb: pgsql.VerbCreate, Detail: "created"})
			}
		}
	}
	for _, o := range fp.Dropped {
		verb := pgsql.VerbDrop
		target := target(o.Kind, o.Object)
		if o.Kind == introspect.KindColumn || o.Kind == introspect.KindConstraint {
			verb = pgsql.VerbAlter
		}
		out = append(out, lint.CatalogChange{Target: target, Verb: verb, Detail: o.Kind + " " + o.Object + " dropped"})
	}
	for _, c := range fp.Changed {
		verb := pgsql.VerbAlter
		switch {
		case strings.HasPrefix(c.Attr, "acl:"), c.Kind == introspect.KindRole && c.Attr == "member_of":
			verb = pgsql.VerbGrant
		case c.Attr == "comment":
			verb = pgsql.VerbComment
		}
		out = append(out, lint.CatalogChange{Target: target(c.Kind, c.Object), Verb: verb, Detail: c.Kind + " " + c.Object + " " + c.Attr})
	}
	return out
}

// target names an object of the footprint the way the static rules name what they touch.
func target(kind, object string) string {
	switch kind {
	case introspect.KindColumn, introspect.KindConstraint:
		if t := tableOf(kind, object); t != "" {
			return "table " + t
		}
	case introspect.KindFunction:
		if i := strings.IndexByte(object, '('); i > 0 {
			return "function " + object[:i]
		}
	}
	return kind + " " + object
}

// tableOf returns the table of a column ("public.thoughts.note") or a constraint
// ("c on public.thoughts").
func tableOf(kind, object string) string {
	if kind == introspect.KindConstraint {
		_, table, _ := splitOn(object)
		return table
	}
	parts := splitIdent(object)
	if len(parts) < 2 {
		return ""
	}
	return strings.Join(parts[:len(parts)-1], ".")
}

func lastPart(object string) string {
	parts := splitIdent(object)
	return parts[len(parts)-1]
}

// splitOn splits "name on schema.table" where name may be a quoted identifier.
func splitOn(object string) (name, table string, ok bool) {
	end := identEnd(object, 0)
	if end < 0 || !strings.HasPrefix(object[end:], " on ") {
		return "", "", false
	}
	return object[:end], object[end+len(" on "):], true
}

// splitIdent splits a dotted name into its identifiers, keeping their quotes.
func splitIdent(s string) []string {
	var parts []string
	for i := 0; i < len(s); {
		end := identEnd(s, i)
		if end < 0 {
			return append(parts, s[i:])
		}
		parts = append(parts, s[i:end])
		i = end
		if i < len(s) && s[i] == '.' {
			i++
		} else {
			break
		}
	}
	return parts
}

// identEnd returns the end of the identifier starting at i (quoted or plain), or -1.
func identEnd(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	if s[i] == '"' {
		for j := i + 1; j < len(s); j++ {
			if s[j] == '"' {
				if j+1 < len(s) && s[j+1] == '"' {
					j++
					continue
				}
				return j + 1
			}
		}
		return -1
	}
	j := i
	for j < len(s) && s[j] != '.' && s[j] != ' ' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

func factValue(fs []introspect.Fact, attr string) string {
	for _, f := range fs {
		if f.Attr == attr {
			return f.Value
		}
	}
	return ""
}

// Owned returns static (lint's findings on the file) without the modifies-existing-object
// findings on objects that installing the file created: an object SQL built at run time
// creates (EXECUTE format('CREATE TABLE ...')) is the file's own, which only the install shows.
func Owned(static []finding.Finding, fp *introspect.Footprint) []finding.Finding {
	if fp == nil {
		return static
	}
	created := map[string]bool{}
	for _, o := range fp.Created {
		created[locate.Key(o.Kind, o.Object)] = true
	}
	var out []finding.Finding
	for _, f := range static {
		if f.Rule == lint.ModifiesExistingObject && created[staticKey(f.Object)] {
			continue
		}
		out = append(out, f)
	}
	return out
}

// staticKey identifies the object of a lint finding as locate.Key identifies a catalog object.
func staticKey(object string) string {
	kind, ref, _ := strings.Cut(object, " ")
	switch pgsql.ObjKind(kind) {
	case pgsql.KindTable, pgsql.KindView, pgsql.KindSequence, pgsql.KindForeignTable:
		return "relation " + ref
	case pgsql.KindFunction, pgsql.KindProcedure:
		if fn, err := pgsql.ParseFunctionRef(ref); err == nil && fn.HasArgs {
			return fmt.Sprintf("function %s/%d", fn.Name, len(fn.Args))
		}
	}
	if strings.HasPrefix(object, "materialized view ") {
		return "relation " + strings.TrimPrefix(object, "materialized view ")
	}
	return object
}
