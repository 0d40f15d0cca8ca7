package pgsql

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/input"
)

// Statement is one top-level statement of a [File].
type Statement struct {
	// Index is the 0-based index of the statement in the file.
	Index int
	// Start and End are byte offsets into the file's source: Start is the first byte of the
	// statement's first token (leading comments and white space excluded), End is one past its
	// last byte, not counting the terminating semicolon.
	Start, End int
	// Text is Src[Start:End].
	Text string
	// Pos is the position of Start.
	Pos finding.Position
}

// File is a parsed migration file.
type File struct {
	// Name is the path the user passed, used in every position.
	Name string
	// Src is the file's content.
	Src string
	// Stmts are the top-level statements in source order.
	Stmts []Statement
	// Ops are the statements as lint sees them, in file order: each top-level statement, followed
	// by the statements inside its function body, DO block or literal EXECUTE strings.
	Ops []Op
	// VectorTypes are the pgvector types with a dimension anywhere in the file, bodies included.
	VectorTypes []VectorType
	// Problems are the parts of the file that could not be analysed (see [Problem]).
	Problems []Problem
	// MetaCommands are psql meta-commands and COPY FROM STDIN data that Parse blanked out.
	MetaCommands []MetaCommand
	// Jobs are the pg_cron jobs whose command the file gives, in file order ([Job]).
	Jobs []Job

	lineStarts []int32 // byte offset of each line (files are at most 4 MiB)
	multibyte  []int32 // for a file that is not ASCII: UTF-8 continuation bytes in Src[:k*posBlock]
	comments   []comment
	parsed     string // Src with meta-commands blanked out: what the parser saw
	sigs       []Signature
	parseBytes int // handed to pg_query by Parse, meta-commands' second tries included
}

type comment struct{ start, end int }

// SyntaxError is a parse error at an exact position in the file.
type SyntaxError struct {
	Pos finding.Position
	Msg string
	// TooComplex is set when the file was not parsed at all: a statement at Pos nests deeper
	// than [MaxNesting]. PostgreSQL may well accept it; ledgercheck cannot analyse it.
	TooComplex bool
}

func (e *SyntaxError) Error() string {
	if e.TooComplex {
		return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
	}
	return fmt.Sprintf("%s: syntax error: %s", e.Pos, e.Msg)
}

// checkText rejects a file that is not valid UTF-8, holds a NUL byte, or is over the migration
// size limit, before it is parsed.
func (f *File) checkText() error {
	if i := indexInvalid(f.Src); i >= 0 {
		what := "invalid UTF-8"
		if f.Src[i] == 0 {
			what = "a NUL byte"
		}
		return &SyntaxError{Pos: f.Pos(i), Msg: "the file contains " + what + "; migrations must be UTF-8 text"}
	}
	if k := input.Migration; int64(len(f.Src)) > k.Limit {
		return &SyntaxError{Pos: f.Pos(0), Msg: input.TooLarge(int64(len(f.Src)), k)}
	}
	return nil
}

// Parse parses src, the content of the file called name. A file that is not valid UTF-8 or that
// contains a NUL byte is rejected with an error at the first offending byte, since the server
// would reject it too; a file over the migration size limit, or with a statement nested deeper
// than [MaxNesting], is rejected before it is parsed. Memory and time are proportional to the
// file: it is parsed in batches of statements, each analysed before the next.
func Parse(name string, src []byte) (*File, error) { return parseFile(name, src, nil) }

// parseFile is [Parse], appending each statement's uses to uses when it is not nil
// ([ParseUses]).
func parseFile(name string, src []byte, uses *[]Use) (*File, error) {
	f := &File{Name: name, Src: string(src)}
	f.indexLines()
	if err := f.checkText(); err != nil {
		return nil, err
	}
	text := f.Src
	// The one nesting check of the file: blanking meta-commands out below keeps every offset
	// and can only make it shallower.
	var cs []comment // the file's comments, as comments(text) finds them
	stmts, err := nesting(text, MaxNesting, &cs)
	if err != nil {
		return nil, f.syntaxError(text, 0, err)
	}
	a := &analyzer{f: f, path: DefaultSearchPath, ops: make([]Op, 0, stmts), uses: uses}
	f.Stmts = make([]Statement, 0, stmts)
	// The file is parsed in batches of statements, each analysed before the next is parsed, so
	// that neither pg_query's C memory nor the Go parse tree ever holds the whole file. A psql
	// meta-command makes its batch fail; it is blanked out and the batch parsed again, at most
	// maxMetaCommands times and metaParseBudget bytes, so that a large file full of them cannot
	// hold the gate.
	budget := metaParseBudget
	for start, tries := 0, 0; start < len(text); {
		end := batchEnd(text, start)
		tree, err := f.parse(text[start:end])
		if err != nil && end < len(text) && errorOffset(text[start:end], err) >= end-start {
			// The batch ends inside a statement (a BEGIN ATOMIC body the scanner did not see
			// whole): parse the rest of the file at once.
			end = len(text)
			tree, err = f.parse(text[start:end])
		}
		if err != nil {
			off := start + errorOffset(text[start:end], err)
			from := 0
			if n := len(f.Stmts); n > 0 {
				from = f.Stmts[n-1].Start
			}
			blanked, ok := f.blankMeta(text, from, off)
			if !ok {
				return nil, f.syntaxError(text[start:end], start, err)
			}
			budget -= off - start
			if tries++; tries > maxMetaCommands || budget < 0 {
				m := f.MetaCommands[len(f.MetaCommands)-1]
				return nil, &SyntaxError{Pos: m.Pos, Msg: fmt.Sprintf("too many psql meta-commands to read the rest of the file (gave up at this one, after %d); a migration is SQL, not a psql script", tries-1)}
			}
			text = blanked
			continue
		}
		a.batch(text[start:end], start, tree)
		start = end
	}
	f.parsed = text
	f.comments = cs
	if len(f.MetaCommands) > 0 { // blanked out: what is left of the text has its own comments
		f.comments = comments(text)
	}
	f.Ops, f.VectorTypes, f.Problems = a.ops, a.vecs, a.probs
	return f, nil
}

// parse parses text, a batch of f whose nesting has been checked, and counts its bytes.
func (f *File) parse(text string) (*pg_query.ParseResult, error) {
	f.parseBytes += len(text)
	return parseTree(text)
}

// batchBytes is about how much of a file pg_query parses at once.
var batchBytes = 64 << 10

// batchEnd returns where the batch of statements that starts at start ends: just past the first
// semicolon at least batchBytes after start that ends a statement (outside parentheses and BEGIN
// ATOMIC bodies), or len(text).
func batchEnd(text string, start int) int {
	if len(text)-start < batchBytes {
		return len(text) // no semicolon can end the batch before the end: nothing to scan
	}
	s := scanner{src: text, off: start}
	var b batchState
	for {
		t := s.next()
		switch t.kind {
		case tokEOF:
			return len(text)
		case tokComment:
			continue
		case tokPunct:
			if b.punct(text[t.start]) && t.end-start >= batchBytes {
				return t.end
			}
		}
		b.word(t, text)
	}
}

// Statements splits text into its statements where [Parse] may cut it into batches: at every
// semicolon outside brackets and BEGIN ATOMIC bodies. It parses nothing; each statement keeps
// the comments and white space before it, and ones that are only that are dropped.
func Statements(text string) []string {
	s := scanner{src: text}
	var b batchState
	var out []string
	start, empty := 0, true
	for {
		t := s.next()
		switch t.kind {
		case tokEOF:
			if !empty {
				out = append(out, text[start:])
			}
			return out
		case tokComment:
			continue
		case tokPunct:
			if b.punct(text[t.start]) {
				if !empty {
					out = append(out, text[start:t.start])
				}
				start, empty = t.end, true
				b.word(t, text)
				continue
			}
		}
		empty = false
		b.word(t, text)
	}
}

// batchState follows the nesting that a semicolon does not end: brackets, and the BEGIN ATOMIC
// ... END of a SQL-standard function body (with the CASE ... END inside it).
type batchState struct {
	depth, atomic, cases int
	begin                bool // the previous token was BEGIN
}

// punct follows a bracket and reports whether c is a semicolon that ends a statement.
func (b *batchState) punct(c byte) bool {
	switch c {
	case '(', '[':
		b.depth++
	case ')', ']':
		b.depth = max(b.depth-1, 0)
	case ';':
		return b.depth == 0 && b.atomic == 0
	}
	return false
}

// word follows BEGIN ATOMIC, CASE and END.
func (b *batchState) word(t token, text string) {
	if t.kind != tokWord {
		b.begin = false
		return
	}
	word := text[t.start:t.end]
	switch {
	case b.begin && strings.EqualFold(word, "atomic"):
		b.atomic++
	case b.atomic > 0 && strings.EqualFold(word, "case"):
		b.cases++
	case b.atomic > 0 && strings.EqualFold(word, "end") && b.cases > 0:
		b.cases--
	case b.atomic > 0 && strings.EqualFold(word, "end"):
		b.atomic--
	}
	b.begin = strings.EqualFold(word, "begin")
}

// batch records and analyses the statements of tree, parsed from text, which starts at offset
// base in the file.
func (a *analyzer) batch(text string, base int, tree *pg_query.ParseResult) {
	f := a.f
	// One scope for the batch: nothing keeps it once a statement is analysed.
	sc := &scope{src: f.Src[base : base+len(text)], m: func(i int) int { return base + i }, ctx: TopLevel, collect: true}
	for _, rs := range tree.GetStmts() {
		start := int(rs.GetStmtLocation())
		end := len(text)
		if n := int(rs.GetStmtLen()); n > 0 {
			end = start + n
		}
		start = skipTrivia(text, start, end)
		end = trimRightSpace(text, start, end)
		i := len(f.Stmts)
		f.Stmts = append(f.Stmts, Statement{
			Index: i, Start: base + start, End: base + end, Text: f.Src[base+start : base+end], Pos: f.Pos(base + start),
		})
		n := len(a.ops)
		sc.stmt = i
		a.stmt(sc, rs.GetStmt(), start, end)
		if cf := rs.GetStmt().GetCreateFunctionStmt(); cf != nil && len(a.ops) > n && len(a.ops[n].Objects) > 0 {
			f.sigs = append(f.sigs, f.signature(&f.Stmts[i], cf, a.ops[n].Objects[0].Name, base))
		}
	}
}

// comments returns the comments of text.
func comments(text string) []comment {
	var out []comment
	s := scanner{src: text}
	for t := s.next(); t.kind != tokEOF; t = s.next() {
		if t.kind == tokComment {
			out = append(out, comment{t.start, t.end})
		}
	}
	return out
}

// Pos converts a byte offset in the file to a position.
func (f *File) Pos(off int) finding.Position {
	if off < 0 {
		off = 0
	}
	if off > len(f.Src) {
		off = len(f.Src)
	}
	line := sort.Search(len(f.lineStarts), func(i int) bool { return int(f.lineStarts[i]) > off }) - 1
	ls := int(f.lineStarts[line])
	col := off - ls + 1
	if f.multibyte != nil {
		// Characters are bytes that do not continue a UTF-8 sequence; the bytes of a sequence
		// that off cuts count one each, as utf8.RuneCountInString counts them.
		r := off
		for r > ls && r < len(f.Src) && !utf8.RuneStart(f.Src[r]) && r > off-utf8.UTFMax {
			r--
		}
		col = r - ls - (f.continuations(r) - f.continuations(ls)) + (off - r) + 1
	}
	return finding.Position{File: f.Name, Line: line + 1, Col: col}
}

// posBlock is the span of f.multibyte's counts.
const posBlock = 512

// continuations returns how many bytes of f.Src[:off] continue a UTF-8 sequence, in time
// independent of the length of the line: Pos on a 4 MiB file of one line must not count it
// from its start for every statement.
func (f *File) continuations(off int) int {
	k := off / posBlock
	n := int(f.multibyte[k])
	for i := k * posBlock; i < off; i++ {
		if f.Src[i]&0xC0 == 0x80 {
			n++
		}
	}
	return n
}

// CharPos converts a 1-based character position in the file (the unit of PostgreSQL's error
// cursor positions) to a position.
func (f *File) CharPos(char int) finding.Position {
	return f.Pos(finding.ByteOffset(f.Src, char))
}

// syntaxError converts a parser error on text, which starts at offset base of f.Src with
// meta-commands blanked out (byte offsets unchanged), to a *SyntaxError.
func (f *File) syntaxError(text string, base int, err error) error {
	var ne *nestingError
	if errors.As(err, &ne) {
		return &SyntaxError{Pos: f.Pos(base + ne.Offset), Msg: ne.Error(), TooComplex: true}
	}
	var pe *parser.Error
	if errors.As(err, &pe) {
		pos := f.Pos(len(f.Src))
		if pe.Cursorpos > 0 {
			pos = f.Pos(base + finding.ByteOffset(text, pe.Cursorpos))
		}
		return &SyntaxError{Pos: pos, Msg: nearOneLine(pe.Message)}
	}
	return &SyntaxError{Pos: f.Pos(base), Msg: err.Error()}
}

// maxNear is the most characters of the text a parser message quotes after "at or near".
const maxNear = 40

// nearOneLine shortens the text the parser quotes in msg (`... at or near "TEXT"`) to its first
// line and at most [maxNear] characters, marked with "…". An unterminated string, dollar quote or
// comment makes the parser quote the rest of the file; the position already says where it is.
func nearOneLine(msg string) string {
	const near = ` at or near "`
	i := strings.Index(msg, near)
	if i < 0 || !strings.HasSuffix(msg, `"`) || len(msg) < i+len(near)+1 {
		return msg
	}
	start, end := i+len(near), len(msg)-1
	quoted := msg[start:end]
	short := quoted
	if nl := strings.IndexAny(short, "\r\n"); nl >= 0 {
		short = short[:nl]
	}
	if utf8.RuneCountInString(short) > maxNear {
		short = string([]rune(short)[:maxNear])
	}
	if short == quoted {
		return msg
	}
	return msg[:start] + short + "…" + msg[end:]
}

// indexLines records where each line starts and, for a file that is not ASCII, the count of
// UTF-8 continuation bytes before every posBlock bytes.
func (f *File) indexLines() {
	src := f.Src
	f.lineStarts = make([]int32, 1, strings.Count(src, "\n")+1)
	n := 0 // continuation bytes so far
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			f.lineStarts = append(f.lineStarts, int32(i+1))
		case c >= 0x80 && f.multibyte == nil:
			// The counts of the blocks before are 0: so far the file is ASCII.
			f.multibyte = make([]int32, len(src)/posBlock+1)
		}
		if c&0xC0 == 0x80 {
			n++
		}
		if f.multibyte != nil && (i+1)%posBlock == 0 {
			f.multibyte[(i+1)/posBlock] = int32(n)
		}
	}
}

// skipTrivia moves off past white space and comments in text, staying below end.
func skipTrivia(text string, off, end int) int {
	s := scanner{src: text, off: off}
	for {
		t := s.next()
		if t.start >= end {
			return max(end, off)
		}
		if t.kind != tokComment {
			return t.start
		}
	}
}

// Comments returns the file's comments in source order.
func (f *File) Comments() []Comment {
	out := make([]Comment, len(f.comments))
	for i, c := range f.comments {
		out[i] = Comment{Start: c.start, End: c.end, Pos: f.Pos(c.start), Text: f.Src[c.start:c.end]}
	}
	return out
}

func trimRightSpace(s string, start, end int) int {
	for end > start {
		switch s[end-1] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			end--
		default:
			return end
		}
	}
	return end
}

// indexInvalid returns the byte offset of the first NUL byte or invalid UTF-8 sequence, or -1.
func indexInvalid(s string) int {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return -1 // the common case, without decoding every rune
	}
	for i, r := range s {
		if r == 0 || r == utf8.RuneError {
			if r == 0 {
				return i
			}
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return -1
}

// Describe names what the top-level statement holding pos creates or acts on ("function
// public.f", or "statement DO" for a statement that names no object), or "" when pos is before
// the first statement.
func (f *File) Describe(pos finding.Position) string {
	idx := -1
	for i, st := range f.Stmts {
		if st.Pos.Line < pos.Line || (st.Pos.Line == pos.Line && st.Pos.Col <= pos.Col) {
			idx = i
		}
	}
	if idx < 0 {
		return ""
	}
	for _, op := range f.Ops {
		if op.Stmt == idx && op.Context == TopLevel {
			if o := op.Object(); o.Kind != "" {
				return o.String()
			}
			return "statement " + op.Tag
		}
	}
	return "statement " + strconv.Itoa(idx+1)
}
