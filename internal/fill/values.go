package fill

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// variants is how many different generic values a type offers for one row (tried one after
// the other when the server rejects a row).
const variants = 4

// gen generates the values of one type.
type gen struct {
	t      typeName
	labels []string // an enum's
	// base is a domain's base type (its own constraints are in strs and nums), elem an array's
	// element, attrs a composite type's attributes.
	base  *gen
	elem  *gen
	attrs []*gen
	// strs and nums are candidates from CHECK constraints on the column (or the domain), tried
	// before the generic values.
	strs []string
	nums []float64
	// ok is false for a type the planner has no value for.
	ok bool
}

// key seeds the generator of one value.
type key struct {
	seed          uint64
	table, column string
	row           int
}

func (k key) rng(salt int) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d", k.table, k.column, k.row, salt)
	return rand.New(rand.NewPCG(k.seed, h.Sum64()))
}

// words make text values readable; a value is a word and the row's number, which keeps values
// distinct from row to row and matches the usual slug and identifier patterns.
var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}

// value returns the literal text of attempt a at k's row (the server reads it with the
// column type's input function).
func (g *gen) value(k key, a int) string {
	if g.base != nil { // a domain: its own candidates, then its base type's
		if s, ok := g.candidate(k.row, a); ok {
			return s
		}
		return g.base.value(k, a-len(g.strs)-len(g.nums))
	}
	if s, ok := g.candidate(k.row, a); ok {
		return s
	}
	a -= len(g.strs) + len(g.nums)
	if a < 0 {
		a = 0
	}
	a %= variants
	if g.t.array > 0 {
		el := *g
		el.t.array--
		if g.elem != nil {
			el = *g.elem
		}
		var parts []string
		for i := range 2 {
			parts = append(parts, arrayElement(el.value(key{k.seed, k.table, k.column, k.row*2 + i}, a)))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	if g.labels != nil {
		return g.labels[(k.row+a)%len(g.labels)]
	}
	if g.attrs != nil {
		var parts []string
		for i, at := range g.attrs {
			parts = append(parts, arrayElement(at.value(key{k.seed, k.table, k.column + "." + strconv.Itoa(i), k.row}, a)))
		}
		return "(" + strings.Join(parts, ",") + ")"
	}
	return scalar(g.t, k, a)
}

// candidate is the CHECK candidate of attempt a at row, if a is one.
func (g *gen) candidate(row, a int) (string, bool) {
	switch {
	case a < len(g.nums):
		return formatNumber(g.nums[a], g.t), true
	case a < len(g.nums)+len(g.strs):
		return g.strs[(row+a-len(g.nums))%len(g.strs)], true
	}
	return "", false
}

// arrayElement quotes v as an element of an array or composite literal.
func arrayElement(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

var epoch = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)

// scalar is the generic value of variant a of a built-in (or extension) type at k's row.
func scalar(t typeName, k key, a int) string {
	r := k.rng(a)
	n := k.row + 1
	word := words[r.IntN(len(words))]
	mod := t.mod
	switch t.name {
	case "text", "character varying", "varchar", "character", "bpchar", "name", "citext":
		var s string
		switch a {
		case 0:
			s = fmt.Sprintf("%s%d", word, n)
		case 1:
			s = fmt.Sprintf("%s%s example %d", strings.ToUpper(word[:1]), word[1:], n)
		case 2:
			s = fmt.Sprintf("%s%d@example.com", word, n)
		default:
			s = fmt.Sprintf("https://example.com/%s%d", word, n)
		}
		if l := mod(0, 0); l > 0 && len(s) > l {
			s = s[len(s)-l:] // keep the row's number: the values stay distinct
		}
		return s
	case "smallint", "integer", "bigint", "int2", "int4", "int8", "oid":
		return strconv.Itoa([]int{n, n * 10, 0, n * 100}[a])
	case "numeric", "decimal", "real", "double precision", "float4", "float8", "money":
		f := []float64{float64(n), float64(n) / 10, 0, float64(n) * 10}[a]
		if p, s := mod(0, 0), mod(1, 0); p > 0 && p-s < 1 {
			f = float64(n) / 10
		}
		return formatNumber(f, t)
	case "boolean", "bool":
		return strconv.FormatBool((k.row+a)%2 == 0)
	case "uuid":
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], r.Uint64())
		binary.BigEndian.PutUint64(b[8:], r.Uint64())
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
	case "date":
		return epoch.AddDate(0, a, k.row).Format("2006-01-02")
	case "timestamp with time zone", "timestamptz":
		return epoch.AddDate(0, a, k.row).Format("2006-01-02 15:04:05+00")
	case "timestamp without time zone", "timestamp":
		return epoch.AddDate(0, a, k.row).Format("2006-01-02 15:04:05")
	case "time without time zone", "time", "time with time zone", "timetz":
		return fmt.Sprintf("%02d:%02d:00", 8+a, k.row%60)
	case "interval":
		return fmt.Sprintf("%d hours", n+a)
	case "json", "jsonb":
		return []string{
			fmt.Sprintf(`{"key": "%s%d", "n": %d}`, word, n, n),
			fmt.Sprintf(`[%d, %d]`, n, n+1),
			fmt.Sprintf(`"%s%d"`, word, n),
			strconv.Itoa(n),
		}[a]
	}
	return structured(t, k, a, r, n, word)
}

// structured is scalar's value of the types with a structure of their own: vectors, text
// search, binary, network, bit strings, ranges, geometry and XML ("" for a type it does not
// know).
func structured(t typeName, k key, a int, r *rand.Rand, n int, word string) string {
	mod := t.mod
	switch t.name {
	case "vector", "halfvec":
		dim := mod(0, 3)
		var b strings.Builder
		b.WriteByte('[')
		for i := range dim {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(float64(r.IntN(2001)-1000)/1000, 'f', -1, 64))
		}
		b.WriteByte(']')
		return b.String()
	case "sparsevec":
		dim := mod(0, 3)
		return fmt.Sprintf("{%d:%g}/%d", 1+r.IntN(dim), float64(r.IntN(1000)+1)/1000, dim)
	case "tsvector":
		return fmt.Sprintf("'%s':1 '%s%d':2", word, words[(k.row+a)%len(words)], n)
	case "tsquery":
		return word + " & " + words[(k.row+a)%len(words)]
	case "bytea":
		return fmt.Sprintf(`\x%016x`, r.Uint64())
	case "inet":
		return fmt.Sprintf("10.%d.0.%d", a, n)
	case "cidr":
		return fmt.Sprintf("10.%d.%d.0/24", a, n)
	case "macaddr":
		return fmt.Sprintf("08:00:2b:%02x:00:%02x", a, n%256)
	case "bit", "bit varying", "varbit":
		l := mod(0, 1)
		if t.name != "bit" && len(t.mods) == 0 {
			l = 8
		}
		var b strings.Builder
		for range l {
			b.WriteByte('0' + byte(r.IntN(2)))
		}
		return b.String()
	case "int4range", "int8range", "numrange":
		return fmt.Sprintf("[%d,%d)", n+a, n+a+10)
	case "daterange":
		d := epoch.AddDate(0, a, k.row)
		return fmt.Sprintf("[%s,%s)", d.Format("2006-01-02"), d.AddDate(0, 1, 0).Format("2006-01-02"))
	case "tstzrange", "tsrange":
		d := epoch.AddDate(0, a, k.row)
		return fmt.Sprintf("[%s,%s)", d.Format("2006-01-02 15:04:05"), d.AddDate(0, 1, 0).Format("2006-01-02 15:04:05"))
	case "point":
		return fmt.Sprintf("(%d,%d)", n, n+a)
	case "xml":
		return fmt.Sprintf("<%s>%d</%s>", word, n, word)
	}
	return ""
}

// mod is the type's i-th modifier, or def when it has fewer.
func (t typeName) mod(i, def int) int {
	if i < len(t.mods) {
		return t.mods[i]
	}
	return def
}

// formatNumber prints f for a numeric type (an integer type gets an integer), at the scale of
// numeric(p,s).
func formatNumber(f float64, t typeName) string {
	switch t.name {
	case "smallint", "integer", "bigint", "int2", "int4", "int8", "oid":
		return strconv.FormatInt(int64(f), 10)
	}
	if len(t.mods) == 2 {
		return strconv.FormatFloat(f, 'f', t.mods[1], 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// known are the built-in and extension types scalar has values for.
var known = map[string]bool{}

func init() {
	for _, n := range []string{"text", "character varying", "varchar", "character", "bpchar", "name", "citext",
		"smallint", "integer", "bigint", "int2", "int4", "int8", "oid", "numeric", "decimal", "real",
		"double precision", "float4", "float8", "money", "boolean", "bool", "uuid", "date",
		"timestamp with time zone", "timestamptz", "timestamp without time zone", "timestamp",
		"time without time zone", "time", "time with time zone", "timetz", "interval", "json", "jsonb",
		"vector", "halfvec", "sparsevec", "tsvector", "tsquery", "bytea", "inet", "cidr", "macaddr",
		"bit", "bit varying", "varbit", "int4range", "int8range", "numrange", "daterange", "tstzrange",
		"tsrange", "point", "xml"} {
		known[n] = true
	}
}

// isNumber reports whether t takes the numbers of a CHECK as candidates (and isText, its
// strings).
func isNumber(t typeName) bool {
	switch t.name {
	case "smallint", "integer", "bigint", "int2", "int4", "int8", "numeric", "decimal", "real", "double precision", "float4", "float8":
		return t.array == 0
	}
	return false
}

func isText(t typeName) bool {
	switch t.name {
	case "text", "character varying", "varchar", "character", "bpchar", "name", "citext":
		return t.array == 0
	}
	return false
}

// types resolves type names against a snapshot's user types.
type types struct {
	byName map[string][]introspect.Type
}

func newTypes(snap *introspect.Snapshot) *types {
	ts := &types{byName: map[string][]introspect.Type{}}
	for _, t := range snap.Types {
		ts.byName[t.Name] = append(ts.byName[t.Name], t)
	}
	return ts
}

// lookup finds the user type t names: in its schema, or (printed unqualified) in the schema
// of the table, public, or the only one of that name.
func (ts *types) lookup(t typeName, tableSchema string) (introspect.Type, bool) {
	cands := ts.byName[t.name]
	for _, want := range []string{t.schema, tableSchema, "public"} {
		for _, c := range cands {
			if c.Schema == want && (t.schema == "" || want == t.schema) {
				return c, true
			}
		}
		if t.schema != "" {
			break
		}
	}
	if t.schema == "" && len(cands) == 1 {
		return cands[0], true
	}
	return introspect.Type{}, false
}

// generator returns the generator of a column (or attribute) of type typ in a table of schema.
func (ts *types) generator(typ, schema string, depth int) *gen {
	t := parseType(typ)
	g := &gen{t: t}
	if ut, ok := ts.lookup(typeName{schema: t.schema, name: t.name}, schema); ok && depth < 4 {
		switch ut.Kind {
		case "enum":
			if len(ut.Labels) == 0 {
				return g
			}
			g.labels, g.ok = ut.Labels, true
			if t.array > 0 {
				g.elem = &gen{t: typeName{name: t.name}, labels: ut.Labels, ok: true}
			}
		case "domain":
			g.base = ts.generator(ut.BaseType, ut.Schema, depth+1)
			g.ok = g.base.ok
			for _, c := range ut.Constraints {
				if c.Type == "check" {
					s, n := literals(c.Definition)
					g.addCandidates(g.base.t, s, n)
				}
			}
			if t.array > 0 {
				el := *g
				el.t = typeName{name: t.name}
				g.elem, g.base, g.strs, g.nums = &el, nil, nil, nil
			}
		case "composite":
			for _, at := range ut.Attributes {
				ag := ts.generator(at.Type, ut.Schema, depth+1)
				if !ag.ok {
					return g
				}
				g.attrs = append(g.attrs, ag)
			}
			g.ok = len(g.attrs) > 0 && t.array == 0
		case "range":
			base := parseType(ut.BaseType)
			if r, ok := map[string]string{"integer": "int4range", "bigint": "int8range", "numeric": "numrange", "date": "daterange",
				"timestamp with time zone": "tstzrange", "timestamp without time zone": "tsrange"}[base.name]; ok {
				g.t.name, g.ok = r, true
			}
		}
		return g
	}
	if t.schema != "" && !known[t.name] {
		return g // a user type the snapshot does not have (an environment schema's)
	}
	g.ok = known[t.name]
	return g
}

// addCandidates adds a CHECK's literals as candidates for a column of type t: its strings for
// text, its numbers (first the middle of the smallest and largest, which meets a range) for
// numbers.
func (g *gen) addCandidates(t typeName, strs []string, nums []float64) {
	switch {
	case isText(t) || g.labels != nil:
		for _, s := range strs {
			if g.labels == nil || slices.Contains(g.labels, s) {
				g.strs = append(g.strs, s)
			}
		}
	case isNumber(t) && len(nums) > 0:
		lo, hi := nums[0], nums[0]
		for _, n := range nums {
			lo, hi = min(lo, n), max(hi, n)
		}
		mid := (lo + hi) / 2
		if !strings.Contains(t.name, "int") {
			g.nums = append(g.nums, mid)
		} else {
			g.nums = append(g.nums, float64(int64(mid)))
		}
		for _, n := range nums {
			g.nums = append(g.nums, n, n+1)
		}
		g.nums = dedupe(g.nums)
	}
}

func dedupe(xs []float64) []float64 {
	seen := map[float64]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
