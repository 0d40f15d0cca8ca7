package diff

import (
	"regexp"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// AttrRenamed is the attribute of a rename: an object of one variant that the other variant has
// under another name, with the same definition. Artifact and Port are the two identities,
// Object the port's one.
const AttrRenamed = "renamed"

// renamable are the kinds whose objects are matched by definition across names: what a port
// renames without changing (a trigger, a policy, an index, a constraint on a table both variants
// have).
var renamable = map[string]bool{
	introspect.KindTrigger: true, introspect.KindPolicy: true, introspect.KindIndex: true, introspect.KindConstraint: true,
}

// renames pairs one-sided objects of the renamable kinds: an artifact-only and a port-only object of
// the same kind on the same relation whose facts are equal once each one's own name is taken
// out of its values (an index's definition names the index). A pair is made only when it is the
// only candidate in both variants. Each pair is removed from oneSided and returned as one
// difference of attribute [AttrRenamed].
func renames(l, r *variantFacts, oneSided map[introspect.ObjectRef]*variantFacts) []Difference {
	sig := func(sf *variantFacts, ref introspect.ObjectRef) string {
		name := bareName(ref.Object)
		word := regexp.MustCompile(`(^|[^A-Za-z0-9_$"])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_$"])`)
		var b strings.Builder
		b.WriteString(ref.Kind + "\x00" + sf.parent[ref].String() + "\x00")
		for _, k := range sf.created[ref] {
			v := word.ReplaceAllString(sf.facts[k].Value, "${1}\x01${2}")
			if ref.Kind == introspect.KindIndex && k.Attr == "constraint" && v != "" {
				v = "\x01" // the constraint it backs, renamed with it
			}
			b.WriteString(k.Attr + "=" + v + "\x00")
		}
		return b.String()
	}
	type cands struct{ artifact, port []introspect.ObjectRef }
	bySig := map[string]*cands{}
	var order []string
	for ref, sf := range oneSided {
		if !renamable[ref.Kind] {
			continue
		}
		if _, ok := sf.parent[ref]; !ok {
			continue
		}
		if p := sf.parent[ref]; oneSided[p] != nil { // folded into a one-sided table
			continue
		}
		s := sig(sf, ref)
		c := bySig[s]
		if c == nil {
			c = &cands{}
			bySig[s] = c
			order = append(order, s)
		}
		if sf == l {
			c.artifact = append(c.artifact, ref)
		} else {
			c.port = append(c.port, ref)
		}
	}
	var out []Difference
	for _, s := range order {
		c := bySig[s]
		if len(c.artifact) != 1 || len(c.port) != 1 {
			continue
		}
		old, nu := c.artifact[0], c.port[0]
		delete(oneSided, old)
		delete(oneSided, nu)
		out = append(out, Difference{Kind: nu.Kind, Object: nu.Object, Attr: AttrRenamed, Artifact: old.Object, Port: nu.Object, Class: introspect.Semantic})
	}
	return out
}

// bareName is an object's own name: "trg" of "trg on public.t", "idx" of "public.idx".
func bareName(object string) string {
	if name, _, ok := strings.Cut(object, " on "); ok {
		return name
	}
	return object[strings.LastIndexByte(object, '.')+1:]
}

// Members summarizes what an object present in one variant only holds: its one-sided children
// by kind, in listing order ("4 columns, 2 constraints, 2 indexes"); "" for an attribute
// difference or an object without children.
func (d Difference) Members() string {
	if d.Presence() == InBoth {
		return ""
	}
	listing := d.Artifact + d.Port
	counts := map[string]int{}
	var kinds []string
	for _, ln := range strings.Split(listing, "\n") {
		if ln == "" || ln[0] == ' ' || strings.Contains(ln, ": ") {
			continue
		}
		kind, _, ok := strings.Cut(ln, " ")
		if !ok {
			continue
		}
		if counts[kind] == 0 {
			kinds = append(kinds, kind)
		}
		counts[kind]++
	}
	var parts []string
	for _, k := range kinds {
		parts = append(parts, nouns.Count(counts[k], k))
	}
	return strings.Join(parts, ", ")
}

// OnePerLine puts each item of a comma-separated list (a function's argument list) on a line of
// its own, splitting only at top-level commas (not inside parentheses, brackets or quotes), so
// that a difference in one argument is one line of a diff. A list of one item is returned as it
// is.
func OnePerLine(list string) string {
	var items []string
	depth, start := 0, 0
	var quote rune
	for i, c := range list {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			items = append(items, strings.TrimSpace(list[start:i]))
			start = i + 1
		}
	}
	if len(items) == 0 {
		return list
	}
	items = append(items, strings.TrimSpace(list[start:]))
	return strings.Join(items, ",\n")
}
