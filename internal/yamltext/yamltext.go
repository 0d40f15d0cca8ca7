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
	lineMsg    = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownKey = regexp.MustCompile(`^field (\S+) not found in type .+$`)
)

// Locate is the one reading of a yaml.v3 decoding error of data (from Unmarshal, a Decoder or
// Node.Decode): the first error of a *yaml.TypeError, else the error itself, with its line, its
// message, and for an unknown key the key and its column. An error that names no line is at the
// line [ErrorLine] says.
func Locate(err error, data []byte) Position {
	var te *yaml.TypeError
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	m := lineMsg.FindStringSubmatch(msg)
	if m == nil {
		return Position{Line: ErrorLine(msg, data), Msg: msg}
	}
	p := Position{Msg: m[2]}
	p.Line, _ = strconv.Atoi(m[1])
	if k := unknownKey.FindStringSubmatch(p.Msg); k != nil {
		p.UnknownKey = k[1]
		lines := bytes.Split(data, []byte("\n"))
		if p.Line >= 1 && p.Line <= len(lines) {
			if i := bytes.Index(lines[p.Line-1], []byte(k[1]+":")); i >= 0 {
				p.Col = utf8.RuneCount(lines[p.Line-1][:i]) + 1
			}
		}
	}
	return p
}

// ErrorLine is the line to report for a YAML decoding error whose message names none: the
// last line for an error at the end of the input (an unterminated quote or flow collection),
// else line 1, the document.
func ErrorLine(msg string, data []byte) int {
	if strings.Contains(msg, "end of stream") {
		return bytes.Count(bytes.TrimRight(data, "\n"), []byte("\n")) + 1
	}
	return 1
}
