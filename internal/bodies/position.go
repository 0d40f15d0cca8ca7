package bodies

import (
	"regexp"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// Where a diagnostic of plpgsql_check points in the file. plpgsql_check numbers a body's lines
// from the line that holds its opening quote (line 1 is the rest of that line), which is the
// body's own first line: the file line is the body's plus lineno - 1. Its position is the
// character within the statement's query, which PL/pgSQL keeps as the statement's own text with
// its INTO clause blanked out (and PERFORM written SELECT): the query is found in the body at its
// line, and the position counted from there.

// place returns where in the file diagnostic d of t points: its token in the body when the file
// wrote the body; else the statement that built it.
func place(in Input, t target, d diag) finding.Position {
	if t.create == nil {
		return builder(in, "function", t.fn.Identity())
	}
	fn := t.create.Func()
	if off, ok := inBody(fn.Body, d); ok {
		return in.File.Pos(fn.BodyOffset(off))
	}
	switch {
	case d.sqlstate == "2F005": // control reaches the body's end without RETURN: at its last END
		if ends := endRE.FindAllStringIndex(fn.Body, -1); len(ends) > 0 {
			return in.File.Pos(fn.BodyOffset(ends[len(ends)-1][0]))
		}
	case quotedName(d.message) != "": // a parameter: in the argument list
		head := in.File.Src[t.create.Start:fn.BodyOffset(0)]
		if loc := word(quotedName(d.message)).FindStringIndex(head); loc != nil {
			return in.File.Pos(t.create.Start + loc[0])
		}
	}
	return t.create.Object().Pos
}

// builder is where an object the file did not create literally points: the statement that
// names it, else the first EXECUTE run at install (not in a function body) of SQL built at run
// time that creates that kind of object, else any such EXECUTE, else the file's first line.
func builder(in Input, kind, identity string) finding.Position {
	if pos, ok := in.Statements.Statement(kind, identity, ""); ok {
		return pos
	}
	var any *finding.Position
	for i := range in.File.Ops {
		op := &in.File.Ops[i]
		d := op.Dynamic()
		if d == nil || d.Literal || op.Context == pgsql.InFunction {
			continue
		}
		if strings.Contains(strings.ToLower(d.SQL), kind) {
			return op.Pos
		}
		if any == nil {
			any = &op.Pos
		}
	}
	if any != nil {
		return *any
	}
	return finding.Position{File: in.File.Name, Line: 1, Col: 1}
}

var (
	endRE    = regexp.MustCompile(`(?i)\bend\b`)
	quotedRE = regexp.MustCompile(`"([^"]+)"`)
)

// quotedName is the first name a message quotes ("unused variable \"x\""), or "".
func quotedName(msg string) string {
	if m := quotedRE.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

// word matches name as a whole word, in any case (unquoted identifiers fold to lower case).
func word(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[^a-z0-9_$])(` + regexp.QuoteMeta(name) + `)($|[^a-z0-9_$])`)
}

// inBody returns the byte offset in body of what d points at: the character of its query at its
// position, its query's start, the variable it names on its line, or its line's first token;
// false when d has no line (it is about the routine as a whole).
func inBody(body string, d diag) (int, bool) {
	if d.lineno <= 0 {
		return 0, false
	}
	ls := lineStart(body, d.lineno)
	if d.query != "" {
		if q := findQuery(body, d.query, ls); q >= 0 {
			return q + finding.ByteOffset(d.query, d.position), true
		}
	}
	le := strings.IndexByte(body[ls:], '\n')
	if le < 0 {
		le = len(body) - ls
	}
	if name := quotedName(d.message); name != "" {
		if loc := word(name).FindStringSubmatchIndex(body[ls : ls+le]); loc != nil {
			return ls + loc[4], true
		}
	}
	i := ls
	for i < ls+le && strings.ContainsRune(" \t\r", rune(body[i])) {
		i++
	}
	return i, true
}

// lineStart is the offset of the 1-based line of s (len(s) past its last line).
func lineStart(s string, line int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return len(s)
		}
		off += i + 1
	}
	return off
}

// findQuery returns where the statement whose query is q starts in body, at or after from (the
// start of its line), else anywhere; -1 when it is not there.
func findQuery(body, q string, from int) int {
	for _, start := range []int{from, 0} {
		for o := start; o+len(q) <= len(body); o++ {
			if queryAt(body, q, o) {
				return o
			}
		}
	}
	return -1
}

// queryAt reports whether the statement at body[o:] is the one whose query is q: the same text,
// but where q has blanks (the INTO clause PL/pgSQL takes out), and SELECT where the body says
// PERFORM.
func queryAt(body, q string, o int) bool {
	i := 0
	if strings.HasPrefix(q, "SELECT ") && strings.EqualFold(body[o:o+7], "PERFORM") {
		i = 7
	}
	for ; i < len(q); i++ {
		if q[i] != body[o+i] && q[i] != ' ' {
			return false
		}
	}
	return true
}
