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
	for s.off < len(s.src) && isSpace(s.src[s.off]) {
		s.off++
	}
	start := s.off
	if start == len(s.src) {
		return token{tokEOF, start, start}
	}
	kind, ok := s.quotedOrComment(start)
	if !ok {
		kind = s.bare(start)
	}
	return token{kind, start, s.off}
}

// at returns the byte i bytes after start, or 0 past the end.
func (s *scanner) at(start, i int) byte {
	if start+i < len(s.src) {
		return s.src[start+i]
	}
	return 0
}

// quotedOrComment moves past a comment, a quoted string or identifier or a dollar-quoted string
// that starts at start, and reports false when none does.
func (s *scanner) quotedOrComment(start int) (tokKind, bool) {
	c, c1 := s.src[start], s.at(start, 1)
	switch {
	case c == '-' && c1 == '-':
		s.lineComment(start)
		return tokComment, true
	case c == '/' && c1 == '*':
		s.blockComment()
		return tokComment, true
	case c == '$':
		return s.dollar(), true
	}
	return s.quotedToken(start)
}

// quotedToken moves past a quoted string (with its E, B, X, N or U& prefix) or a quoted
// identifier that starts at start, and reports false when none does.
func (s *scanner) quotedToken(start int) (tokKind, bool) {
	c, c1, c2 := s.src[start], s.at(start, 1), s.at(start, 2)
	switch {
	case c == '"':
		s.quoted(start+1, '"', false)
		return tokIdent, true
	case c == '\'':
		s.quoted(start+1, '\'', false)
	case c1 == '\'' && (c == 'E' || c == 'e'):
		s.quoted(start+2, '\'', true)
	case c1 == '\'' && strings.IndexByte("BbXxNn", c) >= 0:
		s.quoted(start+2, '\'', false)
	case c1 == '&' && (c == 'U' || c == 'u') && (c2 == '"' || c2 == '\''):
		s.quoted(start+3, c2, false)
		if c2 == '"' {
			return tokIdent, true
		}
	default:
		return 0, false
	}
	return tokString, true
}

// lineComment moves past a -- comment that starts at start, to the end of its line.
func (s *scanner) lineComment(start int) {
	s.off = len(s.src)
	if i := strings.IndexAny(s.src[start+2:], "\r\n"); i >= 0 {
		s.off = start + 2 + i
	}
}

// bare moves past a word, number, punctuation, operator or other character at start.
func (s *scanner) bare(start int) tokKind {
	src, c, c1 := s.src, s.src[start], s.at(start, 1)
	s.off++
	switch {
	case isIdentStart(c):
		for s.off < len(src) && isIdentCont(src[s.off]) {
			s.off++
		}
		return tokWord
	case isDigit(c) || c == '.' && isDigit(c1):
		s.off--
		s.number()
		return tokNumber
	case strings.IndexByte("()[],;.:", c) >= 0:
		return s.punct(c, c1)
	case isOpChar(c):
		s.operator()
		return tokOp
	}
	for s.off < len(src) && src[s.off]&0xC0 == 0x80 { // the rest of a UTF-8 sequence
		s.off++
	}
	return tokOther
}

// punct moves past the punctuation c (followed by c1) whose first byte it is past: ".." is one
// token, and "::" and ":=" are operators.
func (s *scanner) punct(c, c1 byte) tokKind {
	switch {
	case c == '.' && c1 == '.':
		s.off++
	case c == ':' && (c1 == ':' || c1 == '='):
		s.off++
		return tokOp
	}
	return tokPunct
}

// operator moves past the rest of an operator, which a comment start ends.
func (s *scanner) operator() {
	for s.off < len(s.src) && isOpChar(s.src[s.off]) {
		if rest := s.src[s.off:]; len(rest) > 1 && (rest[:2] == "--" || rest[:2] == "/*") {
			break
		}
		s.off++
	}
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
		case isDigit(c) || c == '_' || isLetter(c):
			i++
		case c == '.' && !(i+1 < len(src) && src[i+1] == '.'):
			i++
		case (c == '+' || c == '-') && exponent(src, i):
			i++
		default:
			s.off = i
			return
		}
	}
	s.off = i
}

// isLetter reports whether c is an ASCII letter.
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// exponent reports whether the sign at src[i] is an exponent's: after an e and before a digit.
func exponent(src string, i int) bool {
	return (src[i-1] == 'e' || src[i-1] == 'E') && i+1 < len(src) && isDigit(src[i+1])
}
