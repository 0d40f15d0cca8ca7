package pgsql

import "strings"

// offsetMap maps a byte offset in a derived text (a function body, a string literal's value, a
// query inside a body) to a byte offset in the file.
type offsetMap func(int) int

// literal is a string literal read from source text: its value, and where each byte of the value
// sits in the source (nil when the value is a plain slice of the source starting at base).
type literal struct {
	value     string
	base      int
	idx       []int
	end       int // offset just past the literal
	dollarTag string
}

// pos returns the source offset of byte i of the value.
func (l *literal) pos(i int) int {
	if l.idx == nil {
		return l.base + i
	}
	if i < len(l.idx) {
		return l.idx[i]
	}
	return l.end
}

// offsets returns the per-byte source offsets of the value.
func (l *literal) offsets() []int {
	if l.idx != nil {
		return l.idx
	}
	idx := make([]int, len(l.value))
	for i := range idx {
		idx[i] = l.base + i
	}
	return idx
}

// readLiteral reads the SQL string literal starting at src[off]: '...' (with ” escapes),
// E'...' (backslash escapes kept approximately: one source byte per value byte), or $tag$...$tag$.
func readLiteral(src string, off int) (*literal, bool) {
	if off < 0 || off >= len(src) {
		return nil, false
	}
	switch c := src[off]; {
	case c == '$':
		j := off + 1
		for j < len(src) && src[j] != '$' {
			if !isIdentByte(src[j]) {
				return nil, false
			}
			j++
		}
		if j >= len(src) {
			return nil, false
		}
		tag := src[off : j+1]
		body := j + 1
		k := strings.Index(src[body:], tag)
		if k < 0 {
			return nil, false
		}
		return &literal{value: src[body : body+k], base: body, end: body + k + len(tag), dollarTag: tag}, true
	case c == '\'':
		return readQuoted(src, off+1, false)
	case (c == 'E' || c == 'e') && off+1 < len(src) && src[off+1] == '\'':
		return readQuoted(src, off+2, true)
	}
	return nil, false
}

func readQuoted(src string, i int, escapes bool) (*literal, bool) {
	var b strings.Builder
	var idx []int
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\'' && i+1 < len(src) && src[i+1] == '\'':
			b.WriteByte('\'')
			idx = append(idx, i)
			i += 2
		case c == '\'':
			return &literal{value: b.String(), idx: idx, end: i + 1}, true
		case escapes && c == '\\' && i+1 < len(src):
			b.WriteByte(unescape(src[i+1]))
			idx = append(idx, i)
			i += 2
		default:
			b.WriteByte(c)
			idx = append(idx, i)
			i++
		}
	}
	return nil, false
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return c
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// skipSpaceAndComments returns the first offset at or after off in src that is not white space
// or a comment.
func skipSpaceAndComments(src string, off int) int {
	for off < len(src) {
		switch {
		case strings.ContainsRune(" \t\r\n\f\v", rune(src[off])):
			off++
		case strings.HasPrefix(src[off:], "--"):
			nl := strings.IndexByte(src[off:], '\n')
			if nl < 0 {
				return len(src)
			}
			off += nl + 1
		case strings.HasPrefix(src[off:], "/*"):
			end := strings.Index(src[off+2:], "*/")
			if end < 0 {
				return len(src)
			}
			off += 2 + end + 2
		default:
			return off
		}
	}
	return off
}
