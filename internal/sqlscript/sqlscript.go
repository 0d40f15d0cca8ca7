// Package sqlscript joins the SQL front end (internal/pgsql) and the scratch server
// (internal/scratch, which links no parser): [Parse] reads a migration, a fixture or any SQL
// file the way psql would run it, and [Script] turns the parsed file into the statements scratch
// executes, so that one parse of a variant serves lint, the install and position mapping
// (docs/architecture.md).
package sqlscript

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// Parse substitutes the psql variable `:dim` with dim (when dim > 0; a dimension of four digits
// keeps every position), parses the result and rejects what only psql can run: a meta-command
// (\i, \set, ...) and COPY ... FROM STDIN. Both errors are [*pgsql.SyntaxError] values at their
// position. src is returned parsed as is when it has no `:dim`.
func Parse(name string, src []byte, dim int) (*pgsql.File, error) {
	if dim > 0 {
		if s := scratch.SubstituteDim(string(src), dim); s != string(src) {
			src = []byte(s)
		}
	}
	f, err := pgsql.Parse(name, src)
	if err != nil {
		return nil, err
	}
	if err := Check(f); err != nil {
		return nil, err
	}
	return f, nil
}

// Reuse returns f, the parse of src, as [Parse] would return it for an install at dim: f
// itself when src has no `:dim` to substitute, else src parsed again.
func Reuse(f *pgsql.File, src []byte, dim int) (*pgsql.File, error) {
	if dim > 0 && scratch.SubstituteDim(string(src), dim) != string(src) {
		return Parse(f.Name, src, dim)
	}
	return f, Check(f)
}

// Script returns the statements of f as scratch runs them.
func Script(f *pgsql.File) *scratch.Script {
	sc := &scratch.Script{Name: f.Name, Statements: make([]scratch.Statement, len(f.Stmts)), Position: f.Pos}
	for i, st := range f.Stmts {
		sc.Statements[i] = scratch.Statement{Index: st.Index, Text: st.Text, Start: st.Start, Pos: st.Pos}
	}
	return sc
}

// ExecFile parses src (the content of the file called name, `:dim` replaced by the database's
// dimension) and runs it in db as the install role ([scratch.Database.Exec]). A file that does
// not parse, or that only psql can run, is a [*pgsql.SyntaxError].
func ExecFile(ctx context.Context, db *scratch.Database, name string, src []byte) error {
	sc, err := scripts.get(name, src, db.Dim)
	if err != nil {
		return err
	}
	return db.Exec(ctx, sc)
}

// scripts remembers the last files ExecFile parsed: a run loads the same fixture into every
// variant's database and the upgrade audit's, and each file's parse is the same.
var scripts = scriptMemo{m: map[scriptKey]scriptParse{}}

// maxScripts bounds scriptMemo: a run executes a handful of files; a longer-lived caller
// (the corpus, the tests) starts over when it is reached.
const maxScripts = 16

type scriptKey struct {
	name, src string
	dim       int
}

type scriptParse struct {
	sc  *scratch.Script
	err error
}

// scriptMemo maps a file (name, content, dimension) to its Script or its parse error. Scripts
// are only read once made, so one serves concurrent runs.
type scriptMemo struct {
	mu sync.Mutex
	m  map[scriptKey]scriptParse
}

func (m *scriptMemo) get(name string, src []byte, dim int) (*scratch.Script, error) {
	k := scriptKey{name, string(src), dim}
	m.mu.Lock()
	p, ok := m.m[k]
	m.mu.Unlock()
	if ok {
		return p.sc, p.err
	}
	f, err := Parse(name, src, dim)
	if err == nil {
		p.sc = Script(f)
	}
	p.err = err
	m.mu.Lock()
	if len(m.m) >= maxScripts {
		clear(m.m)
	}
	m.m[k] = p
	m.mu.Unlock()
	return p.sc, p.err
}

// ExecConn runs src on conn as ExecFile runs it in a database, every failing statement a
// [*scratch.ScriptError] ([scratch.ExecScript]).
func ExecConn(ctx context.Context, conn *pgx.Conn, name string, src []byte, dim int) error {
	f, err := Parse(name, src, dim)
	if err != nil {
		return err
	}
	return scratch.ExecScript(ctx, conn, Script(f))
}

// Check rejects what only psql can run, as a [*pgsql.SyntaxError] at its position: a
// meta-command (\i, \set, ...), which pgsql.Parse blanked out so that lint could read the rest
// (installing the file without it would install something else than psql does), and
// COPY ... FROM STDIN, which would wait for data no SQL client sends.
func Check(f *pgsql.File) error {
	if len(f.MetaCommands) > 0 {
		m := f.MetaCommands[0]
		text := m.Text
		if r := []rune(text); len(r) > 40 {
			text = string(r[:40]) + "..."
		}
		return &pgsql.SyntaxError{Pos: m.Pos, Msg: text + " is psql syntax, not SQL; the file cannot be installed as it is (rule unsupported-statement)"}
	}
	for _, op := range f.Ops {
		if op.Context == pgsql.TopLevel && op.Verb == pgsql.VerbCopy && op.Copy() != nil && op.Copy().From && !op.Copy().Program && op.Copy().File == "" {
			return &pgsql.SyntaxError{Pos: op.Pos, Msg: "COPY ... FROM STDIN needs psql to supply the data; the file cannot be installed as it is (rule unsupported-statement)"}
		}
	}
	return nil
}
