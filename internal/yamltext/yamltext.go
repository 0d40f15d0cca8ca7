// Package yamltext checks the bytes of a YAML file before it is decoded, so that the errors the
// YAML decoder reports without a line (invalid UTF-8, control characters, a UTF-16 byte order
// mark) name the line like every other configuration error, and locates the decoder's errors
// ([Locate]): the one place that turns a yaml.v3 error into file:line (and :col where known).
package yamltext

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Check returns the 1-based line of the first byte of data that is not printable UTF-8 text as
// YAML wants it, and what it is; line is 0 when data is fine. Tabs, line breaks and a UTF-8 byte
// order mark are fine.
func Check(data []byte) (line int, what string) {
	line = 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			return line, fmt.Sprintf("invalid UTF-8 (byte 0x%02x); the file must be UTF-8 text", data[i])
		case r == '\n':
			line++
		case r == '\t' || r == '\r' || r == 0x85 || r == 0xFEFF && i == 0:
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF:
			return line, fmt.Sprintf("control character %U; the file must be printable text", r)
		}
		i += n
	}
	return 0, ""
}

// Position is where a YAML decoding error is in its file, and what it says.
type Position struct {
	// Line is 1-based.
	Line int
	// Col is 1-based; 0 when the error does not say (yaml.v3's messages give a line only; the
	// column is known for an unknown key, found on its line).
	Col int
	// Msg is the message without yaml.v3's "yaml: " prefix and "line N: " position.
	Msg string
	// UnknownKey is the key of an unknown-key error ("field K not found in type T"), else "".
	UnknownKey string
}

// At formats "path:line: msg", or "path:line:col: msg" with a column.
func (p Position) At(path string) string {
	if p.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", path, p.Line, p.Col, p.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", path, p.Line, p.Msg)
}

var (
	typeMsg    = regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")
	lineMsg    = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownKey = regexp.MustCompile(`^field (\S+) not found in type .+$`)
)

// Locate is the one reading of a yaml.v3 decoding error of data (from Unmarshal, a Decoder or
// Node.Decode): the first error of a *yaml.TypeError, else the error itself, with its line, its
// message, its column where it can be told, and for an unknown key the key. A type error's line
// is its node's; a syntax error's is found again ([syntaxLine]), since yaml.v3 names the line
// where the enclosing construct starts (one line early for a parser error), not the line of the
// problem.
func Locate(err error, data []byte) Position {
	var te *yaml.TypeError
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	typeErr := errors.As(err, &te) && len(te.Errors) > 0
	if typeErr {
		msg = te.Errors[0]
	}
	m := lineMsg.FindStringSubmatch(msg)
	if m == nil {
		if typeErr {
			return Position{Line: 1, Msg: msg}
		}
		p := Position{Line: syntaxLine(data, 1), Msg: msg}
		p.Col = syntaxCol(data, p.Line, parseError(data))
		return p
	}
	p := Position{Msg: m[2]}
	p.Line, _ = strconv.Atoi(m[1])
	if !typeErr {
		p.Line = syntaxLine(data, p.Line)
		p.Col = syntaxCol(data, p.Line, parseError(data))
		if line, col, ok := openedEarlier(data, p.Line, p.Col); ok {
			p.Msg = fmt.Sprintf("unclosed quote? the quoted string that starts here ends on line %d, and then: %s", p.Line, p.Msg)
			p.Line, p.Col = line, col
		}
		return p
	}
	if k := unknownKey.FindStringSubmatch(p.Msg); k != nil {
		p.UnknownKey = k[1]
		if i := bytes.Index(lineOf(data, p.Line), []byte(k[1]+":")); i >= 0 {
			p.Col = utf8.RuneCount(lineOf(data, p.Line)[:i]) + 1
		}
		return p
	}
	p.Col = valueCol(lineOf(data, p.Line))
	return p
}

// valueCol is the 1-based column of the value on line, the line of a type error: after the
// key's ": " (or a sequence item's "- "), else the line's first character; 0 for an empty line.
func valueCol(line []byte) int {
	rest := bytes.TrimLeft(line, " \t")
	if len(rest) == 0 {
		return 0
	}
	if after, ok := bytes.CutPrefix(rest, []byte("- ")); ok {
		rest = bytes.TrimLeft(after, " \t")
	}
	if i := bytes.Index(rest, []byte(": ")); i >= 0 && !bytes.ContainsAny(rest[:i], "\"'[{") {
		if v := bytes.TrimLeft(rest[i+2:], " \t"); len(v) > 0 {
			rest = v
		}
	}
	return utf8.RuneCount(line[:len(line)-len(rest)]) + 1
}

// openedEarlier reports where the quoted string that ends just before line:col starts, when it
// starts on an earlier line: an unclosed quote that a later quote closed, the parser failing
// only at what follows that later quote. The document up to line:col parses; its last node is
// the string.
func openedEarlier(data []byte, line, col int) (int, int, bool) {
	if col < 2 {
		return 0, 0, false
	}
	start := len(bytes.Join(bytes.SplitAfter(data, []byte("\n"))[:line-1], nil))
	l := lineOf(data, line)
	end := start + len(string([]rune(string(l))[:col-1]))
	var doc yaml.Node
	if yaml.Unmarshal(data[:end], &doc) != nil {
		return 0, 0, false
	}
	last := &doc
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Line > last.Line || n.Line == last.Line && n.Column > last.Column {
			last = n
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	quoted := last.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
	if last.Kind != yaml.ScalarNode || !quoted || last.Line >= line {
		return 0, 0, false
	}
	return last.Line, last.Column, true
}

// lineOf returns the 1-based line n of data, without its line break; nil past the end.
func lineOf(data []byte, n int) []byte {
	lines := bytes.Split(data, []byte("\n"))
	if n < 1 || n > len(lines) {
		return nil
	}
	return bytes.TrimSuffix(lines[n-1], []byte("\r"))
}

// syntaxLine is the line of data's syntax error: the first line n (from the line yaml.v3
// names, from, which is never after it) such that parsing data's first n lines fails exactly as
// parsing the whole of it does, the problem then being on line n. yaml.v3 reads a document as a
// stream, so whatever follows the problem does not change the error; before the problem, the
// shorter document parses, or fails otherwise (it ends in the middle of a construct, and the
// message names the construct's line). A binary search: about log2(lines) parses.
func syntaxLine(data []byte, from int) int {
	full := parseError(data)
	lines := bytes.SplitAfter(data, []byte("\n"))
	if full == "" || len(lines) == 0 {
		return max(from, 1)
	}
	prefix := func(n int) []byte { return data[:len(bytes.Join(lines[:n], nil))] }
	lo, hi := min(max(from, 1), len(lines)), len(lines) // the answer is in [lo, hi]
	for lo < hi {
		mid := (lo + hi) / 2
		if parseError(prefix(mid)) == full {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// parseError is yaml.v3's error parsing data into a node tree, or "".
func parseError(data []byte) string {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return err.Error()
	}
	return ""
}

// syntaxCol is the 1-based column (in characters) of data's syntax error full on its line n,
// or 0 for an empty line: the opening quote of an unterminated string, the bracket of an
// unterminated flow collection, else the first character c of the line such that data up to c
// fails as the whole of it does (found as [syntaxLine] finds the line).
func syntaxCol(data []byte, n int, full string) int {
	line := lineOf(data, n)
	if full == "" || len(bytes.TrimSpace(line)) == 0 {
		return 0
	}
	i := -1
	switch {
	case strings.Contains(full, "end of stream") || strings.Contains(full, "quoted scalar"):
		i = bytes.IndexAny(line, "\"'")
	case strings.Contains(full, "expected ',' or") || strings.Contains(full, "expected node content"):
		i = unclosedBracket(line)
	}
	if i < 0 {
		start := len(bytes.Join(bytes.SplitAfter(data, []byte("\n"))[:n-1], nil))
		lo, hi := 0, len(line) // the answer, an end offset of a prefix of the line, is in [lo, hi]
		for lo < hi {
			mid := (lo + hi) / 2
			if parseError(data[:start+mid]) == full {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		i = max(lo-1, 0)
		for i > 0 && !utf8.RuneStart(line[i]) {
			i--
		}
	}
	return utf8.RuneCount(line[:i]) + 1
}

// unclosedBracket is the byte offset of the last [ or { of line that the line does not close,
// quotes aside, or -1.
func unclosedBracket(line []byte) int {
	var open []int
	var quote byte
	for i, c := range line {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			open = append(open, i)
		case (c == ']' || c == '}') && len(open) > 0:
			open = open[:len(open)-1]
		case c == '#' && (i == 0 || line[i-1] == ' '):
			return lastOr(open, -1)
		}
	}
	return lastOr(open, -1)
}

func lastOr(s []int, def int) int {
	if len(s) == 0 {
		return def
	}
	return s[len(s)-1]
}

// Plain says a type error's message in ledgercheck's words: "cannot unmarshal !!str `soon` into
// time.Duration" is `invalid value "soon": want a duration such as 60s or 2m`. Other messages are
// returned as they are; a target that is not a Go type ("into a configuration (...)") is kept.
func Plain(msg string) string {
	m := typeMsg.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	value := strconv.Quote(m[2])
	switch m[1] {
	case "seq":
		value = "(a list)"
	case "map":
		value = "(a mapping)"
	}
	want := m[3]
	switch {
	case want == "time.Duration":
		want = "a duration such as 60s or 2m"
	case strings.HasPrefix(want, "int") || strings.HasPrefix(want, "uint"):
		want = "a whole number"
	case strings.HasPrefix(want, "float"):
		want = "a number"
	case want == "bool":
		want = "true or false"
	case want == "string":
		want = "text"
	case strings.HasPrefix(want, "[]"):
		want = "a list"
	case strings.HasPrefix(want, "map["), !strings.Contains(want, " ") && strings.Contains(want, "."):
		want = "a mapping"
	}
	return fmt.Sprintf("invalid value %s: want %s", value, want)
}
