package pgsql

import (
	"fmt"
	"os"
	"reflect"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// sameTree checks that parseTree gives what pg_query.Parse gives for sql, and reports whether
// the JSON decoder took it (rather than leaving it to pg_query.Parse).
func sameTree(t testing.TB, name, sql string) (decoded bool) {
	t.Helper()
	want, werr := pg_query.Parse(sql)
	got, gerr := parseTree(sql)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("%s: parseTree error %v, pg_query.Parse %v", name, gerr, werr)
	}
	if werr != nil {
		return false
	}
	if !proto.Equal(got, want) {
		t.Fatalf("%s: parseTree and pg_query.Parse differ on\n%s", name, sql)
	}
	js, err := pg_query.ParseToJSON(sql)
	if err != nil {
		t.Fatal(err)
	}
	return decodeTree(js, sql, &pg_query.ParseResult{})
}

// TestJSONTreeIsTheProtobufTree parses every SQL file of the repository, and every statement of
// each on its own, through the JSON decoder and through pg_query's protobuf: the trees must be
// equal, and nine in ten must come from the decoder.
func TestJSONTreeIsTheProtobufTree(t *testing.T) {
	decoded, total := 0, 0
	for _, p := range sqlFiles(t, repoSQL...) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pg_query.Parse(string(src)); err == nil {
			total++
		}
		if sameTree(t, p, string(src)) {
			decoded++
		}
		f, err := Parse(p, src)
		if err != nil {
			continue
		}
		for _, st := range f.Stmts {
			sameTree(t, p, st.Text)
		}
	}
	// The shipped migrations hold '[0-9]' in regular expressions and [0,1] in comments, no
	// bound of 0: the decoder takes them, not pg_query.Parse after it (lint parses them twice).
	for _, p := range []string{"../../migrations/decision_ledger.sql", "../../migrations/ports/decision_ledger_1024.sql"} {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !sameTree(t, p, string(src)) {
			t.Errorf("%s: left to pg_query.Parse, want decoded", p)
		}
	}
	t.Logf("the JSON decoder took %d of the %d files that parse", decoded, total)
	if decoded < total*9/10 {
		t.Errorf("the JSON decoder took %d of the %d files that parse", decoded, total)
	}
}

func TestJSONTreeEdgeCases(t *testing.T) {
	for _, c := range []struct {
		sql     string
		decoded bool
	}{
		{"SELECT 0, 00, 1, 2147483647", true},
		{"SELECT -1, - 2, -2147483648, 1 - 1, - -1", true}, // negative constants are read from the SQL
		{"SELECT -/* c */1", false},                        // unless a comment hides them
		{"SELECT -(1)", false},                             // or parentheses
		{"SELECT -0x1F", false},
		{"CREATE TABLE t (a text[], b int[3], c int ARRAY, d int[][])", true}, // bounds of -1 too
		{"CREATE TABLE t (b int[3], c int[0])", false},                        // but not 0
		{"CREATE TABLE t (c int[ /* c */ ])", false},
		// A [0] or [- in a comment, a string, a quoted identifier or a dollar-quoted body is
		// no bound: the decoder keeps the file.
		{"-- clamped into [0,1]\nCREATE TABLE t (a text[]) /* [0] /* [-1] */ */", true},
		{"CREATE TABLE t (a text[] CHECK (a[1] ~ '^[0-9]+$' AND a[1] <> '[''[0]'), \"[0]\" int)", true},
		{"CREATE FUNCTION f(a uuid[]) RETURNS int LANGUAGE sql AS $fn$ SELECT '[0]' ~ $$[-]$$ $fn$", true},
		{"CREATE TABLE t (a int[]); SELECT E'\\'[0]'", false}, // E'' escapes: not skipped
		{"CREATE TABLE t (a int[]); SELECT x$y$ FROM t; SELECT '[0]'", false},
		{"CREATE TABLE t (a int[]); SELECT $1 FROM t -- [0", true},
		{"CREATE TABLE t (a int[], b int[0]) -- [", false},
		{"CREATE TABLE t (a int[]); SELECT '[0", false},         // left open
		{"CREATE SEQUENCE s INCREMENT BY -1 MINVALUE 0", false}, // other Integers of 0 or less
		{"SELECT E'\\xff'", false},                              // not UTF-8: proto.Unmarshal rejects it
		{"SELECT 'a\"b\\\\c\n\t<>é', U&'\\0041', true, false, NULL, 1.5, B'101', X'1F'", true},
		{"SELECT '' AS a, $1, $$x$$", true},
		{"", true},
		{"SELECT (", false},
		{"SELECT 1; SELECT 2;; -- c\n", true},
	} {
		if got := sameTree(t, c.sql, c.sql); got != c.decoded {
			t.Errorf("%q: decoded %v, want %v", c.sql, got, c.decoded)
		}
	}
}

// TestJSONTreeTablesAreComplete checks jsontree_gen.go against pg_query's descriptors: every
// oneof case and every enum the decoder may meet (go generate ./internal/pgsql when it fails).
func TestJSONTreeTablesAreComplete(t *testing.T) {
	fd := pg_query.File_pg_query_proto
	msgs := fd.Messages()
	for i := 0; i < msgs.Len(); i++ {
		m := msgs.Get(i)
		mt, err := protoregistry.GlobalTypes.FindMessageByName(m.FullName())
		if err != nil {
			t.Fatal(err)
		}
		goType := reflect.TypeOf(mt.Zero().Interface()).Elem()
		for j := 0; j < m.Oneofs().Len(); j++ {
			fields := m.Oneofs().Get(j).Fields()
			cases := jsonOneofs[goType]
			if len(cases) != fields.Len() {
				t.Errorf("%s: %d oneof cases in jsontree_gen.go, want %d", m.FullName(), len(cases), fields.Len())
			}
			for k := 0; k < fields.Len(); k++ {
				f := fields.Get(k)
				c := cases[f.JSONName()]
				if c == nil {
					t.Errorf("%s: no case %s", m.FullName(), f.JSONName())
					continue
				}
				// set sets the case f to a message of its type.
				p, v := reflect.New(goType), reflect.New(c.typ)
				c.set(p.UnsafePointer(), v.UnsafePointer())
				pm := p.Interface().(proto.Message).ProtoReflect()
				if pm.WhichOneof(m.Oneofs().Get(j)) != f || pm.Get(f).Message().Interface() != v.Interface() {
					t.Errorf("%s: case %s sets another", m.FullName(), f.JSONName())
				}
			}
		}
		plan := messagePlan(goType)
		for i := range plan.fields {
			// Bitmapsets (lists of numbers) are in planner nodes only: a raw parse tree that
			// holds one is left to pg_query.Parse.
			if f := &plan.fields[i]; f.kind == jsonUnsupported && goType.Field(fieldIndex(goType, f.off)).Type.Kind() != reflect.Slice {
				t.Errorf("%s: field %s: a kind the decoder does not read", m.FullName(), f.name)
			}
		}
	}
	enums := fd.Enums()
	if len(jsonEnums) != enums.Len() {
		t.Errorf("%d enums in jsontree_gen.go, want %d", len(jsonEnums), enums.Len())
	}
	for i := 0; i < enums.Len(); i++ {
		e := enums.Get(i)
		et, err := protoregistry.GlobalTypes.FindEnumByName(e.FullName())
		if err != nil {
			t.Fatal(err)
		}
		values := jsonEnums[reflect.TypeOf(et.New(0))]
		if len(values) != e.Values().Len() {
			t.Errorf("%s: %d values in jsontree_gen.go, want %d", e.FullName(), len(values), e.Values().Len())
		}
		for k := 0; k < e.Values().Len(); k++ {
			v := e.Values().Get(k)
			if got, ok := values[string(v.Name())]; !ok || protoreflect.EnumNumber(got) != v.Number() {
				t.Errorf("%s: value %s", e.FullName(), v.Name())
			}
		}
	}
}

func FuzzJSONTree(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT -1, 'x'", "CREATE TABLE t (a text[])", "SELECT E'\\xff'", "GRANT SELECT ON t TO anon"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		if checkNesting(sql, MaxNesting) != nil {
			return
		}
		sameTree(t, "fuzz", sql)
	})
}

func fieldIndex(t reflect.Type, off uintptr) int {
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Offset == off {
			return i
		}
	}
	return -1
}

// Parsing runs in one goroutine per variant: the decoder's plans are built and read
// concurrently (go test -race).
func TestJSONTreeConcurrently(t *testing.T) {
	plansMu.Lock()
	clear(plans) // plans built from scratch, by the goroutines below
	plansMu.Unlock()
	paths := sqlFiles(t, repoSQL...)
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			var err error
			for _, p := range paths {
				src, rerr := os.ReadFile(p)
				if rerr != nil {
					err = rerr
					break
				}
				want, werr := pg_query.Parse(string(src))
				got, gerr := parseTree(string(src))
				if (werr == nil) != (gerr == nil) || werr == nil && !proto.Equal(got, want) {
					err = fmt.Errorf("%s: parseTree differs from pg_query.Parse", p)
					break
				}
			}
			done <- err
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
