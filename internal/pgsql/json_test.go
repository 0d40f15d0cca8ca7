package pgsql

import (
	"encoding/json"
	"math/rand"
	"os"
	"reflect"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// checkJSON fails unless decodeJSON(s) gives what json.Unmarshal gives, or declines.
func checkJSON(t *testing.T, s string, mustTake bool) {
	t.Helper()
	got, ok := decodeJSON(s)
	var want any
	err := json.Unmarshal([]byte(s), &want)
	switch {
	case ok && err != nil:
		t.Errorf("decodeJSON took %q, which json.Unmarshal refuses: %v", s, err)
	case ok && !reflect.DeepEqual(got, want):
		t.Errorf("decodeJSON(%q) = %#v, json.Unmarshal %#v", s, got, want)
	case !ok && mustTake:
		t.Errorf("decodeJSON declined %q", s)
	}
}

func TestDecodeJSON(t *testing.T) {
	for _, s := range []string{
		`[]`, `{}`, ` [ 1 , -2.5e3 , 0 , 0.5 , true , false , null , "a" ] `, `{"a":{"b":[{}]}}`,
		`"\"\\\/\b\f\n\r\t\u00e9\u20ac\ud83d\ude00"`, `"é€😀"`, `{"a":1,"a":2}`, `-0`, `1E+2`,
	} {
		checkJSON(t, s, true)
	}
	for _, s := range []string{
		``, `[`, `[1,]`, `{"a"}`, `{"a":}`, `01`, `-01`, `1.`, `.5`, `-.5`, `+1`, `1e`, `1e+`, `--1`,
		`0x10`, `Infinity`, `NaN`, `tru`, `nul`, `"\x"`, `"\u12"`, `"\ud83d"`, `"\ud83dx"`, "\"a\nb\"",
		"\"\xff\"", `[1] [2]`, `{"a":1,}`, `"abc`, `1 2`,
	} {
		checkJSON(t, s, false)
	}
	// Mutations of a real tree: every result either declined or equal to json.Unmarshal's.
	base := `[{"PLpgSQL_function":{"datums":[{"PLpgSQL_var":{"refname":"n","lineno":2,"datatype":{"PLpgSQL_type":{"typname":"int "}},"default_val":{"PLpgSQL_expr":{"query":"'é\"\\x' \u003e 0","parseMode":2}}}}]}}]`
	checkJSON(t, base, true)
	r := rand.New(rand.NewSource(1))
	alphabet := []byte(`{}[],:"\ u0123456789.eE+-truefalsn/` + "\x00\xff")
	for i := 0; i < 20000; i++ {
		b := []byte(base)
		for k := r.Intn(3) + 1; k > 0; k-- {
			j := r.Intn(len(b))
			switch r.Intn(3) {
			case 0:
				b[j] = alphabet[r.Intn(len(alphabet))]
			case 1:
				b = append(b[:j], b[j+1:]...)
			default:
				b = append(b[:j], append([]byte{alphabet[r.Intn(len(alphabet))]}, b[j:]...)...)
			}
		}
		checkJSON(t, string(b), false)
	}
}

// TestDecodeJSONOfBodies decodes the PL/pgSQL tree of every function and DO block of the
// repository's SQL files with decodeJSON and json.Unmarshal.
func TestDecodeJSONOfBodies(t *testing.T) {
	paths := sqlFiles(t, repoSQL...)
	n := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := pg_query.Parse(string(src))
		if err != nil {
			continue
		}
		for _, rs := range tree.Stmts {
			if rs.Stmt.GetCreateFunctionStmt() == nil && rs.Stmt.GetDoStmt() == nil {
				continue
			}
			end := len(src)
			if rs.StmtLen > 0 {
				end = int(rs.StmtLocation + rs.StmtLen)
			}
			js, err := pg_query.ParsePlPgSqlToJSON(string(src[rs.StmtLocation:end]))
			if err != nil {
				continue
			}
			checkJSON(t, js, true)
			n++
		}
	}
	if n < 50 {
		t.Errorf("only %d PL/pgSQL trees", n)
	}
}

// FuzzDecodeJSON asserts that decodeJSON gives what json.Unmarshal gives, or declines, on any
// text. Seeds are the hand-picked texts of TestDecodeJSON and a real PL/pgSQL tree.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`[]`, `{"a":{"b":[{}]}}`, `"\ud83d\ude00"`, `-0.5e+3`, `[1,]`, "\"\xff\"",
		`[{"PLpgSQL_function":{"datums":[{"PLpgSQL_var":{"refname":"n","lineno":2}}]}}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkJSON(t, s, false) })
}
