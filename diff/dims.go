package diff

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// DimPlaceholder replaces a variant's own dimension in normalized values: vector(1536) in the
// variant at 1536 and vector(1024) in the one at 1024 both read vector(:dim), the psql variable the
// repository's :dim convention uses.
const DimPlaceholder = ":dim"

var typmods = regexp.MustCompile(`\([^)]*\)`)

var dimType = regexp.MustCompile(`(?i)\b(vector|halfvec|sparsevec)\s*\(\s*(\d+)\s*\)`)

// normalizeDims rewrites every pgvector typmod equal to dim into the placeholder.
func normalizeDims(s string, dim int) string {
	if s == "" || !strings.Contains(strings.ToLower(s), "vec") {
		return s
	}
	want := strconv.Itoa(dim)
	return dimType.ReplaceAllStringFunc(s, func(m string) string {
		sub := dimType.FindStringSubmatch(m)
		if sub[2] != want {
			return m
		}
		return strings.ToLower(sub[1]) + "(" + DimPlaceholder + ")"
	})
}

// countDims counts the pgvector typmods equal to dim in s.
func countDims(s string, dim int) int {
	n := 0
	want := strconv.Itoa(dim)
	for _, sub := range dimType.FindAllStringSubmatch(s, -1) {
		if sub[2] == want {
			n++
		}
	}
	return n
}

// Site is one attribute where dimension normalization rewrote a value in at least one variant:
// vector(artifact's dim) in the artifact and vector(port's dim) in the port are taken as the
// same type.
type Site struct {
	Kind   string `json:"kind"`
	Object string `json:"object"`
	Attr   string `json:"attr"`
	// Artifact and Port count the typmods rewritten in each variant.
	Artifact int `json:"artifact"`
	Port     int `json:"port"`
	// ArtifactPos and PortPos are where a declared type is written, for sites from the source.
	ArtifactPos *Position `json:"artifact_pos,omitempty"`
	PortPos     *Position `json:"port_pos,omitempty"`
}

// String renders the site as "kind object attr".
func (s Site) String() string { return s.Kind + " " + s.Object + " " + s.Attr }

// sites lists the attributes either variant rewrote.
func sites(l, r *variantFacts) []Site {
	byKey := map[introspect.FactKey]*Site{}
	collect := func(sf *variantFacts) {
		for k, f := range sf.facts {
			raw := f.raw
			n := max(countDims(raw.Value, sf.variant.Dim), countDims(raw.Display, sf.variant.Dim))
			if n == 0 {
				continue
			}
			s := byKey[k]
			if s == nil {
				s = &Site{Kind: k.Kind, Object: k.Object, Attr: k.Attr}
				byKey[k] = s
			}
			if sf.which == Artifact {
				s.Artifact, s.ArtifactPos = n, f.pos
			} else {
				s.Port, s.PortPos = n, f.pos
			}
		}
	}
	if l.variant.Dim <= 0 || r.variant.Dim <= 0 || l.variant.Dim == r.variant.Dim {
		return []Site{}
	}
	collect(l)
	collect(r)
	out := make([]Site, 0, len(byKey))
	for _, s := range byKey {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Site) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Object, b.Object), cmp.Compare(a.Attr, b.Attr))
	})
	return out
}

type declared struct {
	introspect.Fact
	pos *Position
}

// declaredFacts turns the source's signatures into "declared ..." attributes of the function
// objects the catalog knows (matched by schema, name and number of identity arguments), so that
// typmods pg_proc drops are compared too. A later definition of the same function replaces an
// earlier one, as it does in the database.
func declaredFacts(src *Source, sf *variantFacts) []declared {
	funcs := map[string][]string{} // "schema.name(" -> catalog identities
	for k := range sf.facts {
		if k.Kind != introspect.KindFunction {
			continue
		}
		if i := strings.IndexByte(k.Object, '('); i >= 0 {
			p := k.Object[:i+1]
			if !slices.Contains(funcs[p], k.Object) {
				funcs[p] = append(funcs[p], k.Object)
			}
		}
	}
	byObject := map[string][]declared{}
	var order []string
	for _, sig := range src.Signatures {
		in := sig.inputTypes()
		prefix := sig.Name + "("
		// Without a catalog match, the identity is the declared types without typmods, as
		// pg_proc would have it.
		bare := make([]string, len(in))
		for i, t := range in {
			bare[i] = typmods.ReplaceAllString(t, "")
		}
		object := prefix + strings.Join(bare, ", ") + ")"
		for _, id := range funcs[prefix] {
			if argCount(id) == len(in) {
				object = id
				break
			}
		}
		var facts []declared
		for i, p := range sig.Params {
			name := p.Name
			if name == "" {
				name = "$" + strconv.Itoa(i+1)
			}
			what := "argument"
			switch p.Mode {
			case "table":
				what = "result column"
			case "out", "inout", "variadic":
				what = p.Mode + " argument"
			}
			pos := p.Pos
			facts = append(facts, declared{introspect.Fact{Kind: introspect.KindFunction, Object: object, Attr: "declared " + what + " " + name, Value: p.Type}, &pos})
		}
		if sig.Returns != "" {
			pos := sig.ReturnsPos
			facts = append(facts, declared{introspect.Fact{Kind: introspect.KindFunction, Object: object, Attr: "declared result", Value: sig.Returns}, &pos})
		}
		if _, seen := byObject[object]; !seen {
			order = append(order, object)
		}
		byObject[object] = facts
	}
	var out []declared
	for _, o := range order {
		out = append(out, byObject[o]...)
	}
	return out
}

// argCount counts the arguments of a function identity "schema.name(t1, t2)".
func argCount(identity string) int {
	i := strings.IndexByte(identity, '(')
	args := strings.TrimSuffix(identity[i+1:], ")")
	if strings.TrimSpace(args) == "" {
		return 0
	}
	n, depth := 1, 0
	for _, c := range args {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
	}
	return n
}

// mismatches scans a variant's source for pgvector typmods that are not the variant's dimension
// and reports each one that no other difference already shows (in that variant, the literal
// type(N) appears in no difference's value).
func mismatches(s *variantFacts, diffs []Difference) []Difference {
	src, dim := s.variant.Source, s.variant.Dim
	if src == nil || dim <= 0 {
		return nil
	}
	var out []Difference
	seen := map[string]bool{}
	for _, v := range src.VectorTypes {
		if v.Dim == dim {
			continue
		}
		found := fmt.Sprintf("%s(%d)", strings.ToLower(v.Type), v.Dim)
		if shownIn(diffs, s.which, found) {
			continue
		}
		obj := v.Statement
		if obj == "" {
			obj = "file " + src.Name
		}
		if seen[obj+found] {
			continue
		}
		seen[obj+found] = true
		pos := v.Pos
		expected := fmt.Sprintf("%s(%d)", strings.ToLower(v.Type), dim)
		out = append(out, Difference{
			Kind: KindDimension, Object: obj, Attr: s.which.String(), Expected: expected, Found: found,
			Class: introspect.Semantic, Pos: &pos,
			Note: fmt.Sprintf("%s declares %s but the %s is at dimension %d (expected %s)", src.Name, found, s.which, dim, expected),
		})
	}
	return out
}

// shownIn reports whether literal appears in a value of variant which in a difference.
func shownIn(diffs []Difference, which Which, literal string) bool {
	for _, d := range diffs {
		if d.Kind == KindDimension {
			continue // its values are expected and found, not the variants'
		}
		vals := []string{d.Port, d.PortText}
		if which == Artifact {
			vals = []string{d.Artifact, d.ArtifactText}
		}
		for _, v := range vals {
			if strings.Contains(strings.ToLower(strings.ReplaceAll(v, " ", "")), literal) {
				return true
			}
		}
	}
	return false
}
