package pgsql

import (
	"errors"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"regexp"
	"strings"
	"sync"

	"github.com/pganalyze/pg_query_go/v5/parser"
)

// maxMetaCommands bounds how many psql meta-commands Parse blanks out before giving up.
const maxMetaCommands = 200

// metaParseBudget bounds the bytes Parse parses again, up to each parse error, while it blanks
// meta-commands out (a parse that fails takes about 0.1 s per MiB up to the error): a few seconds.
const metaParseBudget = 32 << 20

// errorOffset returns the byte offset of a parse error in text, or len(text).
func errorOffset(text string, err error) int {
	var pe *parser.Error
	if errors.As(err, &pe) && pe.Cursorpos > 0 {
		return finding.ByteOffset(text, pe.Cursorpos)
	}
	return len(text)
}

var copyFromStdinRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)\bcopy\b[^;]*\bfrom\s+stdin\b[^;]*;[ \t]*\r?\n`)
})

// blankMeta handles a parse error at byte offset off of text caused by psql syntax: a
// meta-command line (\i, \set, ...) or the data block after COPY ... FROM STDIN, whose COPY
// statement starts at or after from. It records the command in f.MetaCommands and returns
// text with it replaced by spaces (offsets unchanged). ok is false if the error has another cause.
func (f *File) blankMeta(text string, from, off int) (string, bool) {
	if off >= len(text) {
		return "", false
	}
	ls := strings.LastIndexByte(text[:off], '\n') + 1
	// COPY ... FROM STDIN data: from the line after the COPY statement to a line "\.". The
	// COPY statement starts at from or after it.
	for _, m := range copyFromStdinRE().FindAllStringIndex(text[from:off], -1) {
		start := from + m[1]
		if strings.TrimSpace(text[start:ls]) != "" && !dataOnly(text[start:ls]) {
			continue
		}
		end := len(text)
		if i := strings.Index(text[start:], "\n\\."); i >= 0 {
			end = start + i + 3
		} else if strings.HasPrefix(text[start:], "\\.") {
			end = start + 2
		}
		if end <= off && end != len(text) {
			continue
		}
		f.MetaCommands = append(f.MetaCommands, MetaCommand{Pos: f.Pos(start), Text: "COPY ... FROM STDIN data"})
		return blank(text, start, end), true
	}
	// A meta-command: a backslash that starts a line (after white space).
	if i := firstNonSpace(text, ls); i < len(text) && text[i] == '\\' && i <= off {
		le := strings.IndexByte(text[i:], '\n')
		if le < 0 {
			le = len(text) - i
		}
		f.MetaCommands = append(f.MetaCommands, MetaCommand{Pos: f.Pos(i), Text: strings.TrimSpace(text[i : i+le])})
		return blank(text, i, i+le), true
	}
	return "", false
}

// dataOnly reports whether s, the text between a COPY FROM STDIN and the parse error, was not
// parsed as SQL either (it has no semicolon-terminated statement of its own).
func dataOnly(s string) bool { return !strings.Contains(s, ";") || strings.Count(s, "\t") > 0 }

// blank replaces text[start:end] with spaces, keeping line breaks.
func blank(text string, start, end int) string {
	b := []byte(text)
	for i := start; i < end; i++ {
		if b[i] != '\n' && b[i] != '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}
