package pgsql

import (
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// A policy statement's findings point at the statement (the parser records no position of the
// policy's name, and the table's was column 51 of a one-line CREATE POLICY), and a finding
// about the table it attaches to at the ON clause's table.
func TestPolicyStatementPositions(t *testing.T) {
	src := "create table public.notes (id bigint primary key);\n" +
		"  create policy \"anyone can read notes\" on public.notes for select to anon using (true);\n" +
		"alter policy \"anyone can read notes\" on public.notes to authenticated;\n"
	f, err := Parse("p.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	at := func(line, col int) finding.Position { return finding.Position{File: "p.sql", Line: line, Col: col} }
	for _, tc := range []struct {
		op           int
		at, obj, tbl finding.Position
	}{
		{1, at(2, 3), at(2, 3), at(2, 44)},
		{2, at(3, 1), at(3, 1), at(3, 1)},
	} {
		op := &f.Ops[tc.op]
		if op.At() != tc.at || op.Object().Pos != tc.obj || op.TableAt() != tc.tbl {
			t.Errorf("%s: At %v, policy at %v, TableAt %v; want %v, %v, %v", op.Tag, op.At(), op.Object().Pos, op.TableAt(), tc.at, tc.obj, tc.tbl)
		}
	}
}
