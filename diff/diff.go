package diff

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// Which names one of the two variants a comparison holds: the artifact (the shipped migration)
// or the port (its adaptation). A [Difference]'s values, a [Site]'s counts and a one-sided
// object's [Presence] are keyed by it, never by position.
type Which int

// The two variants of a comparison.
const (
	Artifact Which = iota + 1
	Port
)

// String returns "artifact" or "port".
func (w Which) String() string {
	switch w {
	case Artifact:
		return "artifact"
	case Port:
		return "port"
	}
	return "unknown variant"
}

// Install is one variant's install: what the migration created and changed, where it came from,
// and the variant's vector dimension.
type Install struct {
	// File is the migration file as the user named it.
	File string
	// Dim is the variant's vector dimension (0: unknown, no normalization).
	Dim int
	// Footprint is what installing File changed in the catalog.
	Footprint *introspect.Footprint
	// Source is what the migration declares, for the declared signatures and the dimension
	// scan; nil skips both.
	Source *Source
}

// Difference is one attribute of one object that differs between the artifact and the port, an
// object present in one variant only (Attr ""), or a dimension mismatch in one variant's file
// (Kind [KindDimension]: Expected and Found instead of the variants' values).
type Difference struct {
	// ID is the stable readable identity: "kind object attr #digest12".
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Object string `json:"object"`
	// Attr is the attribute; "" for an object present in one variant only; for a dimension
	// mismatch, the variant whose file declares it ("artifact" or "port").
	Attr string `json:"attr"`
	// Artifact and Port are the normalized compared values; "" is absent. For an object present
	// in one variant only, the value is the listing of its facts (and its one-sided children's),
	// one "attr: value" line each.
	Artifact string `json:"artifact"`
	Port     string `json:"port"`
	// ArtifactText and PortText are the displayed texts when they differ from the values (a
	// function's raw body).
	ArtifactText string `json:"artifact_text,omitempty"`
	PortText     string `json:"port_text,omitempty"`
	// Expected and Found are a dimension mismatch's values (Kind [KindDimension]): the type the
	// variant's dimension requires and the type its file declares.
	Expected string `json:"expected,omitempty"`
	Found    string `json:"found,omitempty"`
	// Class is semantic, or cosmetic when only the displayed text differs.
	Class introspect.Class `json:"class"`
	// Pos is where the difference is in a source file, when it comes from the source (a
	// declared type, a dimension).
	Pos *Position `json:"pos,omitempty"`
	// Note explains a difference that is not a plain value comparison (kind "dimension").
	Note string `json:"note,omitempty"`
}

// KindDimension is the kind of a dimension mismatch: a pgvector typmod in a variant's file that
// is not the variant's dimension and that no other difference shows.
const KindDimension = "dimension"

// Values returns the two values the difference pins: the artifact's and the port's, or for a
// dimension mismatch the expected and the found type.
func (d Difference) Values() (string, string) {
	if d.Kind == KindDimension {
		return d.Expected, d.Found
	}
	return d.Artifact, d.Port
}

// Digest is "sha256:" and the hex SHA-256 of the first value of [Difference.Values], a NUL
// byte and the second: an allowlist entry that pins it accepts exactly this pair.
func (d Difference) Digest() string { return Digest(d.Values()) }

// Digest returns the digest [Difference.Digest] computes for a pair of values.
func Digest(first, second string) string {
	h := sha256.New()
	h.Write([]byte(first))
	h.Write([]byte{0})
	h.Write([]byte(second))
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Presence says which variant has the object of a difference.
type Presence int

// The presences of a difference's object.
const (
	// InBoth: an attribute difference (or a rename, or a dimension mismatch).
	InBoth Presence = iota
	// ArtifactOnly: an object only the artifact has.
	ArtifactOnly
	// PortOnly: an object only the port has.
	PortOnly
)

// String returns "artifact only", "port only", or "" for InBoth.
func (p Presence) String() string {
	switch p {
	case ArtifactOnly:
		return "artifact only"
	case PortOnly:
		return "port only"
	}
	return ""
}

// Presence says which variant has the object of a one-sided difference.
func (d Difference) Presence() Presence {
	if d.Attr != "" || d.Kind == KindDimension {
		return InBoth
	}
	if d.Port == "" {
		return ArtifactOnly
	}
	if d.Artifact == "" {
		return PortOnly
	}
	return InBoth
}

// Shown returns the texts to display for the two variants (for a dimension mismatch, the
// expected and the found type).
func (d Difference) Shown() (artifact, port string) {
	if d.Kind == KindDimension {
		return d.Expected, d.Found
	}
	artifact, port = d.Artifact, d.Port
	if d.ArtifactText != "" || d.PortText != "" {
		artifact, port = d.ArtifactText, d.PortText
	}
	return artifact, port
}

// IsText reports whether the values are texts best shown as a unified diff (bodies, view
// definitions, policy expressions, object listings, anything multi-line).
func (d Difference) IsText() bool {
	if d.Kind == KindDimension {
		return false
	}
	switch d.Attr {
	case "", "body", "definition", "using", "with_check":
		return true
	}
	l, r := d.Shown()
	return strings.Contains(l, "\n") || strings.Contains(r, "\n")
}

// Result is the outcome of [Compare].
type Result struct {
	// Artifact and Port are the variants' files and dimensions.
	Artifact VariantInfo `json:"artifact"`
	Port     VariantInfo `json:"port"`
	// Differences are sorted by (kind, object, attr).
	Differences []Difference `json:"differences"`
	// Sites are the places where dimension normalization rewrote a value (see [Site]).
	Sites []Site `json:"dimension_sites"`
}

// VariantInfo describes a variant in a [Result].
type VariantInfo struct {
	File string `json:"file"`
	Dim  int    `json:"dim"`
}

// Semantic returns the semantic differences.
func (r *Result) Semantic() []Difference {
	var out []Difference
	for _, d := range r.Differences {
		if d.Class != introspect.Cosmetic {
			out = append(out, d)
		}
	}
	return out
}

// fact is a normalized fact with where it was declared (source facts only).
type fact struct {
	introspect.Fact
	// raw is the fact before dimension normalization.
	raw introspect.Fact
	pos *Position
}

// variantFacts is a variant flattened for comparison.
type variantFacts struct {
	which   Which
	variant Install
	facts   map[introspect.FactKey]fact
	created map[introspect.ObjectRef][]introspect.FactKey // objects the migration created
	objects map[introspect.ObjectRef]bool                 // objects with any fact
	parent  map[introspect.ObjectRef]introspect.ObjectRef
}

// Compare compares the artifact with the port. It never fails: a nil footprint is an empty one.
func Compare(artifact, port Install) *Result {
	res := &Result{
		Artifact:    VariantInfo{artifact.File, artifact.Dim},
		Port:        VariantInfo{port.File, port.Dim},
		Differences: []Difference{},
		Sites:       []Site{},
	}
	norm := artifact.Dim > 0 && port.Dim > 0 && artifact.Dim != port.Dim
	l := flatten(Artifact, artifact, norm)
	r := flatten(Port, port, norm)
	res.Sites = sites(l, r)
	renumberColumns(l, r)

	// Objects present in one variant only, folded into their one-sided parent.
	oneSided := map[introspect.ObjectRef]*variantFacts{}
	for ref := range l.created {
		if _, ok := r.created[ref]; !ok && !r.hasObject(ref) {
			oneSided[ref] = l
		}
	}
	for ref := range r.created {
		if _, ok := l.created[ref]; !ok && !l.hasObject(ref) {
			oneSided[ref] = r
		}
	}
	renamed := renames(l, r, oneSided)
	res.Differences = append(res.Differences, renamed...)
	res.Differences = append(res.Differences, oneSidedDifferences(l, oneSided)...)
	res.Differences = append(res.Differences, attributeDifferences(l, r, oneSided, renamed)...)
	res.Differences = append(res.Differences, mismatches(l, res.Differences)...)
	res.Differences = append(res.Differences, mismatches(r, res.Differences)...)
	for i := range res.Differences {
		res.Differences[i].ID = makeID(res.Differences[i])
	}
	slices.SortFunc(res.Differences, compareDiffs)
	return res
}

// oneSidedDifferences are the objects of one variant only (oneSided: the variant's facts, l
// the artifact's), each folded into its one-sided parent: one difference per root, listing its
// members.
func oneSidedDifferences(l *variantFacts, oneSided map[introspect.ObjectRef]*variantFacts) []Difference {
	var out []Difference
	root := func(ref introspect.ObjectRef) introspect.ObjectRef {
		sf := oneSided[ref]
		for {
			p, ok := sf.parent[ref]
			if !ok || oneSided[p] != sf {
				return ref
			}
			ref = p
		}
	}
	groups := map[introspect.ObjectRef][]introspect.ObjectRef{}
	for ref := range oneSided {
		rt := root(ref)
		groups[rt] = append(groups[rt], ref)
	}
	for rt, members := range groups {
		sf := oneSided[rt]
		slices.SortFunc(members, func(a, b introspect.ObjectRef) int {
			if a == rt {
				return -1
			}
			if b == rt {
				return 1
			}
			return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Object, b.Object))
		})
		listing := sf.listing(rt, members)
		d := Difference{Kind: rt.Kind, Object: rt.Object, Class: introspect.Semantic}
		if sf == l {
			d.Artifact, d.ArtifactText = listing, sf.compact(members)
		} else {
			d.Port, d.PortText = listing, sf.compact(members)
		}
		out = append(out, d)
	}

	return out
}

// attributeDifferences are the attributes that differ between l (the artifact's facts) and r
// (the port's), for every object that is neither one-sided nor one of the renamed pairs.
func attributeDifferences(l, r *variantFacts, oneSided map[introspect.ObjectRef]*variantFacts, renamed []Difference) []Difference {
	var out []Difference
	keys := map[introspect.FactKey]bool{}
	for k := range l.facts {
		keys[k] = true
	}
	for k := range r.facts {
		keys[k] = true
	}
	for k := range keys {
		ref := introspect.ObjectRef{Kind: k.Kind, Object: k.Object}
		if _, ok := oneSided[ref]; ok || slices.ContainsFunc(renamed, func(d Difference) bool {
			return d.Kind == ref.Kind && (d.Artifact == ref.Object || d.Port == ref.Object)
		}) {
			continue
		}
		a, b := l.facts[k], r.facts[k]
		if a.Value == b.Value && a.Shown() == b.Shown() {
			continue
		}
		d := Difference{Kind: k.Kind, Object: k.Object, Attr: k.Attr, Artifact: a.Value, Port: b.Value, Class: introspect.Semantic}
		if a.Display != "" || b.Display != "" {
			d.ArtifactText, d.PortText = a.Shown(), b.Shown()
		}
		if k.Attr == "arguments" && d.ArtifactText == "" && d.PortText == "" {
			d.ArtifactText, d.PortText = OnePerLine(a.Value), OnePerLine(b.Value)
		}
		if a.Value == b.Value {
			d.Class = introspect.Cosmetic
		}
		if b.pos != nil {
			d.Pos = b.pos
		} else if a.pos != nil {
			d.Pos = a.pos
		}
		out = append(out, d)
	}

	return out
}

func compareDiffs(a, b Difference) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Object, b.Object), cmp.Compare(a.Attr, b.Attr),
		cmp.Compare(a.Artifact, b.Artifact), cmp.Compare(a.Port, b.Port), cmp.Compare(a.Expected, b.Expected), cmp.Compare(a.Found, b.Found))
}

func makeID(d Difference) string {
	id := d.Kind + " " + d.Object
	if d.Attr != "" {
		id += " " + d.Attr
	}
	return id + " #" + strings.TrimPrefix(d.Digest(), "sha256:")[:12]
}

// hasObject reports whether the variant has any fact of ref (it changed the object, which existed
// before, or created it).
func (s *variantFacts) hasObject(ref introspect.ObjectRef) bool {
	return s.objects[ref]
}

// listing renders the facts of a one-sided object and its one-sided children.
func (s *variantFacts) listing(root introspect.ObjectRef, members []introspect.ObjectRef) string {
	var b strings.Builder
	for _, ref := range members {
		prefix := ""
		if ref != root {
			b.WriteString(ref.String() + "\n")
			prefix = "  "
		}
		for _, k := range s.created[ref] {
			f := s.facts[k]
			if f.Value == "" && f.Display == "" {
				continue
			}
			v := strings.ReplaceAll(f.Value, "\n", "\n"+prefix+"    ")
			b.WriteString(prefix + k.Attr + ": " + v + "\n")
		}
	}
	return b.String()
}

// compact renders a one-sided object and its one-sided children for display, one line per
// object ("column public.t.note: not_null=false; position=5; type=text"), so that a table only
// one variant has reads as its objects rather than as a line per fact. An object with a
// multi-line value (a body) keeps one line per fact, as in the listing.
func (s *variantFacts) compact(members []introspect.ObjectRef) string {
	var b strings.Builder
	for _, ref := range members {
		var parts []string
		multi := false
		for _, k := range s.created[ref] {
			f := s.facts[k]
			if f.Value == "" && f.Display == "" {
				continue
			}
			multi = multi || strings.Contains(f.Value, "\n")
			parts = append(parts, k.Attr+"="+f.Value)
		}
		if multi {
			b.WriteString(ref.String() + "\n" + s.listing(ref, []introspect.ObjectRef{ref}))
			continue
		}
		b.WriteString(ref.String() + ": " + strings.Join(parts, "; ") + "\n")
	}
	return b.String()
}

// flatten turns a variant into normalized facts keyed by (kind, object, attr).
func flatten(which Which, s Install, norm bool) *variantFacts {
	sf := &variantFacts{
		which:   which,
		variant: s,
		facts:   map[introspect.FactKey]fact{},
		created: map[introspect.ObjectRef][]introspect.FactKey{},
		objects: map[introspect.ObjectRef]bool{},
		parent:  map[introspect.ObjectRef]introspect.ObjectRef{},
	}
	add := func(f introspect.Fact, pos *Position, created bool) {
		raw := f
		if norm {
			f.Value = normalizeDims(f.Value, s.Dim)
			f.Display = normalizeDims(f.Display, s.Dim)
		}
		sf.facts[f.Key()] = fact{f, raw, pos}
		sf.objects[f.Ref()] = true
		if created {
			sf.created[f.Ref()] = append(sf.created[f.Ref()], f.Key())
		}
	}
	fp := s.Footprint
	if fp == nil {
		fp = &introspect.Footprint{}
	}
	for _, o := range fp.Created {
		for _, f := range o.Facts {
			add(f, nil, true)
			if (f.Kind == introspect.KindIndex || f.Kind == introspect.KindStatistics) && f.Attr == "table" {
				sf.parent[f.Ref()] = introspect.ObjectRef{Kind: introspect.KindTable, Object: f.Value}
			}
		}
		if p, ok := parentOf(o.ObjectRef); ok {
			sf.parent[o.ObjectRef] = p
		}
	}
	for _, c := range fp.Changed {
		add(introspect.Fact{Kind: c.Kind, Object: c.Object, Attr: c.Attr, Value: c.After, Display: c.AfterDisplay}, nil, false)
	}
	for _, o := range fp.Dropped {
		add(introspect.Fact{Kind: o.Kind, Object: o.Object, Attr: "dropped", Value: "true"}, nil, false)
	}
	if s.Source != nil {
		for _, df := range declaredFacts(s.Source, sf) {
			_, created := sf.created[df.Ref()]
			add(df.Fact, df.pos, created)
		}
	}
	// A column's parent is a view when the variant created a view of that name.
	for ref, p := range sf.parent {
		if _, ok := sf.created[p]; ok || p.Kind != introspect.KindTable {
			continue
		}
		if v := (introspect.ObjectRef{Kind: introspect.KindView, Object: p.Object}); sf.created[v] != nil {
			sf.parent[ref] = v
		}
	}
	for ref, keys := range sf.created {
		slices.SortFunc(keys, func(a, b introspect.FactKey) int { return cmp.Compare(a.Attr, b.Attr) })
		sf.created[ref] = keys
	}
	return sf
}

// parentOf returns the object a child object belongs to, by its kind's parent in introspect's
// table of kinds when the identity names it: a column's relation, a constraint's, trigger's,
// policy's or rule's table, a composite type's attribute's type. The relation kind is not known
// from the identity alone, so a parent other than a type is looked up as a table (views fold
// their columns too, see flatten). An index's and statistics object's parent is the table their
// "table" fact names (flatten); an owned sequence stands apart.
func parentOf(ref introspect.ObjectRef) (introspect.ObjectRef, bool) {
	name := introspect.ParentOf(ref.Kind, ref.Object, func(string) string { return "" })
	if name == "" {
		return introspect.ObjectRef{}, false
	}
	if ref.Kind == introspect.KindAttribute {
		return introspect.ObjectRef{Kind: introspect.KindType, Object: name}, true
	}
	return introspect.ObjectRef{Kind: introspect.KindTable, Object: name}, true
}

// renumberColumns rewrites the "position" of the columns of a relation that has columns in one
// variant only as their rank among the columns both variants have: the one-sided column is reported
// itself, and the columns after it are not moved by it.
func renumberColumns(l, r *variantFacts) {
	cols := func(sf *variantFacts) map[introspect.ObjectRef]map[string]int {
		out := map[introspect.ObjectRef]map[string]int{}
		for k, f := range sf.facts {
			if k.Kind != introspect.KindColumn || k.Attr != "position" {
				continue
			}
			ref := introspect.ObjectRef{Kind: k.Kind, Object: k.Object}
			p, ok := sf.parent[ref]
			if !ok {
				continue
			}
			if out[p] == nil {
				out[p] = map[string]int{}
			}
			n, _ := strconv.Atoi(f.Value)
			out[p][k.Object] = n
		}
		return out
	}
	lc, rc := cols(l), cols(r)
	for rel, lcols := range lc {
		rcols, ok := rc[rel]
		if !ok {
			continue
		}
		shared := 0
		for c := range lcols {
			if _, ok := rcols[c]; ok {
				shared++
			}
		}
		if shared == len(lcols) && shared == len(rcols) {
			continue
		}
		for _, v := range []struct {
			sf   *variantFacts
			cols map[string]int
			peer map[string]int
		}{{l, lcols, rcols}, {r, rcols, lcols}} {
			var names []string
			for c := range v.cols {
				if _, ok := v.peer[c]; ok {
					names = append(names, c)
				}
			}
			slices.SortFunc(names, func(a, b string) int { return cmp.Compare(v.cols[a], v.cols[b]) })
			for i, c := range names {
				k := introspect.FactKey{Kind: introspect.KindColumn, Object: c, Attr: "position"}
				f := v.sf.facts[k]
				if want := strconv.Itoa(i + 1); f.Value != want {
					f.Value = want
					v.sf.facts[k] = f
				}
			}
		}
	}
}
