package pgsql

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth is below encoding/json's nesting limit of 10,000, so that decodeJSON gives up
// wherever json.Unmarshal would.
const maxJSONDepth = 9000

// decodeJSON decodes the JSON text s into what json.Unmarshal into an any gives (map[string]any,
// []any, string, float64, bool, nil), several times faster: pg_query's PL/pgSQL trees are
// small and many. It reports false for anything it does not take (invalid JSON or UTF-8, a
// number strconv cannot parse, nesting past maxJSONDepth): the caller then uses encoding/json,
// whose result, or error, it is.
func decodeJSON(s string) (any, bool) {
	d := jsonDecoder{s: s}
	v, ok := d.value(0)
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.i == len(d.s)
}

type jsonDecoder struct {
	s string
	i int
}

func (d *jsonDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// sep reads what follows an object's member or an array's element: ',' (more follow) or close
// (the end: end is true); ok is false for anything else.
func (d *jsonDecoder) sep(close byte) (end, ok bool) {
	d.space()
	if d.i >= len(d.s) {
		return false, false
	}
	switch d.s[d.i] {
	case ',':
		d.i++
		return false, true
	case close:
		d.i++
		return true, true
	}
	return false, false
}

func (d *jsonDecoder) value(depth int) (any, bool) {
	if depth > maxJSONDepth {
		return nil, false
	}
	d.space()
	if d.i >= len(d.s) {
		return nil, false
	}
	switch c := d.s[d.i]; {
	case c == '{':
		d.i++
		m := map[string]any{}
		d.space()
		if d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			return m, true
		}
		for {
			d.space()
			k, ok := d.str()
			if !ok {
				return nil, false
			}
			d.space()
			if d.i >= len(d.s) || d.s[d.i] != ':' {
				return nil, false
			}
			d.i++
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			if end, ok := d.sep('}'); !ok {
				return nil, false
			} else if end {
				return m, true
			}
		}
	case c == '[':
		d.i++
		a := []any{}
		d.space()
		if d.i < len(d.s) && d.s[d.i] == ']' {
			d.i++
			return a, true
		}
		for {
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
			if end, ok := d.sep(']'); !ok {
				return nil, false
			} else if end {
				return a, true
			}
		}
	case c == '"':
		return d.str()
	case c == 't' && strings.HasPrefix(d.s[d.i:], "true"):
		d.i += 4
		return true, true
	case c == 'f' && strings.HasPrefix(d.s[d.i:], "false"):
		d.i += 5
		return false, true
	case c == 'n' && strings.HasPrefix(d.s[d.i:], "null"):
		d.i += 4
		return nil, true
	case c == '-' || c >= '0' && c <= '9':
		j := d.i + 1
		for j < len(d.s) && strings.IndexByte("0123456789.eE+-", d.s[j]) >= 0 {
			j++
		}
		num := d.s[d.i:j]
		if !jsonNumber(num) {
			return nil, false
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return nil, false
		}
		d.i = j
		return f, true
	}
	return nil, false
}

// str reads a string at d.i.
func (d *jsonDecoder) str() (string, bool) {
	if d.i >= len(d.s) || d.s[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	j := start
	for j < len(d.s) && d.s[j] != '"' && d.s[j] != '\\' && d.s[j] >= 0x20 {
		j++
	}
	if j < len(d.s) && d.s[j] == '"' {
		raw := d.s[start:j]
		if !utf8.ValidString(raw) {
			return "", false
		}
		d.i = j + 1
		return raw, true
	}
	var b strings.Builder
	b.WriteString(d.s[start:j])
	for j < len(d.s) {
		c := d.s[j]
		switch {
		case c == '"':
			d.i = j + 1
			out := b.String()
			if !utf8.ValidString(out) {
				return "", false
			}
			return out, true
		case c < 0x20:
			return "", false
		case c != '\\':
			b.WriteByte(c)
			j++
			continue
		}
		if j+1 >= len(d.s) {
			return "", false
		}
		switch e := d.s[j+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(d.s, j+2)
			if !ok {
				return "", false
			}
			j += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if j+7 < len(d.s) && d.s[j+2] == '\\' && d.s[j+3] == 'u' {
					r2, ok = hex4(d.s, j+4)
				}
				if !ok {
					return "", false // encoding/json makes it U+FFFD; let it
				}
				dec := utf16.DecodeRune(r, r2)
				if dec == utf8.RuneError {
					return "", false
				}
				r = dec
				j += 6
			}
			b.WriteRune(r)
		default:
			return "", false
		}
		j += 2
	}
	return "", false
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s[i:i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}

// jsonNumber reports whether s is a number of JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(s string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
