package pgsql

import "strings"

// scanner is a small lexer for PostgreSQL's SQL that tells apart what matters before parsing:
// comments, string constants ('...', E'...', B'...', X'...', N'...', U&'...' and
// dollar-quoted), quoted identifiers, words, operators and punctuation. It is not PostgreSQL's
// scanner: it never fails, allocates nothing, and a token it cannot place is [tokOther]. What it
// must get right is where strings, quoted identifiers and comments end, so that no parenthesis
// or semicolon inside one is taken for SQL (TestScannerAgreesWithPostgres, FuzzScanner).
type scanner struct {
	src string
	off int
}

// tokKind is the class of a [token].
type tokKind uint8

// The kinds of token.
const (
	tokEOF     tokKind = iota
	tokComment         // -- to the end of the line (CR or LF), or /* */ (nested)
	tokWord            // a keyword or an unquoted identifier
	tokIdent           // a quoted identifier
	tokString          // a string constant, dollar-quoted ones included
	tokNumber          // a numeric constant
	tokParam           // $1
	tokOp              // an operator, :: and := included
	tokPunct           // ( ) [ ] , ; . .. :
	tokOther           // anything else, such as the backslash of a psql meta-command
)

// token is a token of src[start:end].
type token struct {
	kind       tokKind
	start, end int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentCont(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isOpChar reports whether c may be part of an operator (PostgreSQL's "self" and "op_chars").
func isOpChar(c byte) bool {
	switch c {
	case '+', '-', '*', '/', '<', '>', '=', '~', '!', '@', '#', '%', '^', '&', '|', '`', '?':
		return true
	}
	return false
}

// next returns the next token, skipping white space, or a token of kind tokEOF at the end.
func (s *scanner) next() token {
	src := s.src
	for s.off < len(src) && isSpace(src[s.off]) {
		s.off++
	}
	start := s.off
	if start == len(src) {
		return token{tokEOF, start, start}
	}
	c := src[start]
	at := func(i int) byte {
		if start+i < len(src) {
			return src[start+i]
		}
		return 0
	}
	kind := tokOther
	switch {
	case c == '-' && at(1) == '-':
		kind = tokComment
		s.off = len(src)
		for i := start + 2; i < len(src); i++ {
			if src[i] == '\n' || src[i] == '\r' {
				s.off = i
				break
			}
		}
	case c == '/' && at(1) == '*':
		kind = tokComment
		s.blockComment()
	case c == '\'':
		kind = tokString
		s.quoted(start+1, '\'', false)
	case (c == 'E' || c == 'e') && at(1) == '\'':
		kind = tokString
		s.quoted(start+2, '\'', true)
	case (c == 'B' || c == 'b' || c == 'X' || c == 'x' || c == 'N' || c == 'n') && at(1) == '\'':
		kind = tokString
		s.quoted(start+2, '\'', false)
	case (c == 'U' || c == 'u') && at(1) == '&' && (at(2) == '\'' || at(2) == '"'):
		kind = tokString
		if at(2) == '"' {
			kind = tokIdent
		}
		s.quoted(start+3, at(2), false)
	case c == '"':
		kind = tokIdent
		s.quoted(start+1, '"', false)
	case c == '$':
		kind = s.dollar()
	case isIdentStart(c):
		kind = tokWord
		s.off++
		for s.off < len(src) && isIdentCont(src[s.off]) {
			s.off++
		}
	case isDigit(c) || c == '.' && isDigit(at(1)):
		kind = tokNumber
		s.number()
	case c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == ';':
		kind = tokPunct
		s.off++
	case c == '.':
		kind = tokPunct
		s.off++
		if at(1) == '.' {
			s.off++
		}
	case c == ':':
		kind = tokPunct
		s.off++
		if at(1) == ':' || at(1) == '=' {
			kind = tokOp
			s.off++
		}
	case isOpChar(c):
		kind = tokOp
		s.off++
		for s.off < len(src) && isOpChar(src[s.off]) {
			if rest := src[s.off:]; len(rest) > 1 && (rest[:2] == "--" || rest[:2] == "/*") {
				break
			}
			s.off++
		}
	default:
		s.off++
		for s.off < len(src) && src[s.off]&0xC0 == 0x80 { // the rest of a UTF-8 sequence
			s.off++
		}
	}
	return token{kind, start, s.off}
}

// quoted moves past a quoted string or identifier whose content starts at from and ends at the
// first q that is not doubled (nor, with backslashes, escaped by one); to the end if there is none.
func (s *scanner) quoted(from int, q byte, backslashes bool) {
	src := s.src
	for i := from; i < len(src); i++ {
		switch src[i] {
		case '\\':
			if backslashes {
				i++
			}
		case q:
			if i+1 < len(src) && src[i+1] == q {
				i++
				continue
			}
			s.off = i + 1
			return
		}
	}
	s.off = len(src)
}

// blockComment moves past a /* */ comment, which nests; to the end if it is unterminated.
func (s *scanner) blockComment() {
	src := s.src
	depth := 0
	for i := s.off; i+1 < len(src); i++ {
		switch {
		case src[i] == '/' && src[i+1] == '*':
			depth++
			i++
		case src[i] == '*' && src[i+1] == '/':
			depth--
			i++
			if depth == 0 {
				s.off = i + 1
				return
			}
		}
	}
	s.off = len(src)
}

// dollar moves past what starts with $ at s.off: a parameter ($1), a dollar-quoted string
// ($tag$...$tag$, to the end if unterminated) or a lone $.
func (s *scanner) dollar() tokKind {
	src, start := s.src, s.off
	i := start + 1
	if i < len(src) && isDigit(src[i]) {
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		s.off = i
		return tokParam
	}
	if i < len(src) && isIdentStart(src[i]) {
		for i < len(src) && isIdentCont(src[i]) && src[i] != '$' {
			i++
		}
	}
	if i >= len(src) || src[i] != '$' {
		s.off = start + 1
		return tokOther
	}
	tag := src[start : i+1]
	if end := strings.Index(src[i+1:], tag); end >= 0 {
		s.off = i + 1 + end + len(tag)
	} else {
		s.off = len(src)
	}
	return tokString
}

// number moves past a numeric constant: digits, a fraction, an exponent, PostgreSQL 16's
// underscores and 0x, 0o, 0b prefixes (and whatever letters follow, which the parser rejects).
func (s *scanner) number() {
	src := s.src
	i := s.off
	for i < len(src) {
		c := src[i]
		switch {
		case isDigit(c) || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			i++
		case c == '.' && !(i+1 < len(src) && src[i+1] == '.'):
			i++
		case (c == '+' || c == '-') && (src[i-1] == 'e' || src[i-1] == 'E') && i+1 < len(src) && isDigit(src[i+1]):
			i++
		default:
			s.off = i
			return
		}
	}
	s.off = i
}
