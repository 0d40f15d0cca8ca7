// Package yamltext checks the bytes of a YAML file before it is decoded, so that the errors the
// YAML decoder reports without a line (invalid UTF-8, control characters, a UTF-16 byte order
// mark) name the line like every other configuration error.
package yamltext

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
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

// ErrorLine is the line to report for a YAML decoding error whose message names none: the
// last line for an error at the end of the input (an unterminated quote or flow collection),
// else line 1, the document.
func ErrorLine(msg string, data []byte) int {
	if strings.Contains(msg, "end of stream") {
		return bytes.Count(bytes.TrimRight(data, "\n"), []byte("\n")) + 1
	}
	return 1
}
