package fill

import (
	"strconv"
	"strings"
)

// The catalog gives constraints, index definitions and types as text (pg_get_constraintdef,
// pg_get_indexdef, format_type); these read the few shapes the planner needs out of that text.

// lexer reads identifiers, string literals and punctuation of a catalog definition.
type lexer struct {
	s string
	i int
}

func (l *lexer) space() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\n' || l.s[l.i] == '\t') {
		l.i++
	}
}

// ident reads an identifier (quoted or not, folded as written: the catalog prints unquoted
// identifiers in lower case); ok is false when none is next.
func (l *lexer) ident() (string, bool) {
	l.space()
	if l.i >= len(l.s) {
		return "", false
	}
	if l.s[l.i] == '"' {
		return l.quoted('"')
	}
	j := l.i
	for j < len(l.s) && isIdentByte(l.s[j], j == l.i) {
		j++
	}
	if j == l.i {
		return "", false
	}
	w := l.s[l.i:j]
	l.i = j
	return w, true
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || !first && (c >= '0' && c <= '9' || c == '$')
}

// punct consumes c if it is next.
func (l *lexer) punct(c byte) bool {
	l.space()
	if l.i < len(l.s) && l.s[l.i] == c {
		l.i++
		return true
	}
	return false
}

// keyword consumes the words of kw (case-insensitive) if they are next.
func (l *lexer) keyword(kw string) bool {
	save := l.i
	for _, w := range strings.Fields(kw) {
		got, ok := l.ident()
		if !ok || !strings.EqualFold(got, w) {
			l.i = save
			return false
		}
	}
	return true
}

// qualified reads schema.name or name.
func (l *lexer) qualified() (schema, name string, ok bool) {
	a, ok := l.ident()
	if !ok {
		return "", "", false
	}
	if l.punct('.') {
		b, ok := l.ident()
		return a, b, ok
	}
	return "", a, true
}

// list reads "(a, b, ...)" of identifiers.
func (l *lexer) list() ([]string, bool) {
	if !l.punct('(') {
		return nil, false
	}
	var out []string
	for {
		id, ok := l.ident()
		if !ok {
			return nil, false
		}
		out = append(out, id)
		if l.punct(')') {
			return out, true
		}
		if !l.punct(',') {
			return nil, false
		}
	}
}

// foreignKey is a foreign key as pg_get_constraintdef prints it.
type foreignKey struct {
	cols             []string
	refSchema, table string // refSchema is empty when the catalog printed the name unqualified
	refCols          []string
}

// parseForeignKey reads "FOREIGN KEY (a, b) REFERENCES s.t(x, y) ...".
func parseForeignKey(def string) (foreignKey, bool) {
	l := &lexer{s: def}
	var fk foreignKey
	var ok bool
	if !l.keyword("FOREIGN KEY") {
		return fk, false
	}
	if fk.cols, ok = l.list(); !ok || !l.keyword("REFERENCES") {
		return fk, false
	}
	if fk.refSchema, fk.table, ok = l.qualified(); !ok {
		return fk, false
	}
	if fk.refCols, ok = l.list(); !ok || len(fk.refCols) != len(fk.cols) {
		return fk, false
	}
	return fk, true
}

// mentioned returns the names of cols that def names as identifiers (outside string literals),
// in cols' order.
func mentioned(def string, cols []string) []string {
	seen := map[string]bool{}
	l := &lexer{s: def}
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == '\'':
			l.literal()
		case c == '"' || isIdentByte(c, true):
			if id, ok := l.ident(); ok {
				seen[id] = true
			} else {
				l.i++
			}
		case c >= '0' && c <= '9':
			for l.i < len(l.s) && isIdentByte(l.s[l.i], false) {
				l.i++
			}
		default:
			l.i++
		}
	}
	var out []string
	for _, c := range cols {
		if seen[c] {
			out = append(out, c)
		}
	}
	return out
}

// literal reads the string literal at l.i (a quote inside doubled; an unterminated one runs
// to the end).
func (l *lexer) literal() string {
	v, ok := l.quoted('\'')
	if !ok {
		l.i = len(l.s)
	}
	return v
}

// quoted reads the token at l.i that q quotes, q doubled inside standing for itself; ok is false
// when it does not end.
func (l *lexer) quoted(q byte) (string, bool) {
	var b strings.Builder
	for j := l.i + 1; j < len(l.s); j++ {
		if l.s[j] == q {
			if j+1 < len(l.s) && l.s[j+1] == q {
				b.WriteByte(q)
				j++
				continue
			}
			l.i = j + 1
			return b.String(), true
		}
		b.WriteByte(l.s[j])
	}
	return b.String(), false
}

// literals returns the string literals and the numbers of a CHECK definition, in order, each
// once: the candidate values of the column it constrains.
func literals(def string) (strs []string, nums []float64) {
	l := &lexer{s: def}
	seenS, seenN := map[string]bool{}, map[float64]bool{}
	prevIdent := false
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == '\'':
			s := l.literal()
			if !seenS[s] {
				seenS[s] = true
				strs = append(strs, s)
			}
			prevIdent = false
		case c == '"' || isIdentByte(c, true):
			if _, ok := l.ident(); !ok {
				l.i++
			}
			prevIdent = true
		case c >= '0' && c <= '9' && !prevIdent:
			j := l.i
			for j < len(l.s) && (l.s[j] >= '0' && l.s[j] <= '9' || l.s[j] == '.') {
				j++
			}
			neg := l.i > 0 && l.s[l.i-1] == '-'
			// A number right after "(" of a type modifier (numeric(3,2)) or a cast is not a
			// value; the cost of keeping one is a candidate that fails, so keep them simple.
			if f, err := strconv.ParseFloat(l.s[l.i:j], 64); err == nil {
				if neg {
					f = -f
				}
				if !seenN[f] {
					seenN[f] = true
					nums = append(nums, f)
				}
			}
			l.i = j
		default:
			prevIdent = c == '.' && prevIdent
			l.i++
		}
	}
	return strs, nums
}

// typeName is a column type as format_type prints it: [schema.]name[(mods)][[]...].
type typeName struct {
	schema, name string
	mods         []int
	array        int // array dimensions
}

// parseType reads format_type's text ("character varying(40)", "public.mood[]", "vector(1536)",
// "timestamp with time zone", `public."My Type"`).
func parseType(s string) typeName {
	var t typeName
	for strings.HasSuffix(s, "[]") {
		t.array++
		s = strings.TrimSuffix(s, "[]")
	}
	// Modifiers: the last parenthesized group, unless it is inside quotes; "timestamp(3) with
	// time zone" keeps its modifier before the words.
	if i := strings.IndexByte(s, '('); i >= 0 && !strings.Contains(s[:i], `"`) {
		if j := strings.IndexByte(s[i:], ')'); j > 0 {
			for _, m := range strings.Split(s[i+1:i+j], ",") {
				if n, err := strconv.Atoi(strings.TrimSpace(m)); err == nil {
					t.mods = append(t.mods, n)
				}
			}
			s = strings.TrimSpace(s[:i] + s[i+j+1:])
		}
	}
	if strings.Contains(s, `"`) || (strings.Contains(s, ".") && !strings.Contains(s, " ")) {
		l := &lexer{s: s}
		if schema, name, ok := l.qualified(); ok {
			t.schema, t.name = schema, name
			return t
		}
	}
	t.name = s
	return t
}
