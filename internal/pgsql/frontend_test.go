package pgsql

import (
	"os"
	"reflect"
	"testing"
)

// TestBothPathsReadTheSame parses every SQL file of the repository (the migrations, lint's golden
// cases, the corpus, the rerun and parity cases, the fixtures) on the fast path and on the
// reference path (pg_query.Parse and encoding/json): the files read, their statements, operations
// and problems, and the normal form of every function body, must be the same.
func TestBothPathsReadTheSame(t *testing.T) {
	defer SetPath(SetPath(Fast))
	for _, p := range sqlFiles(t, repoSQL...) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		SetPath(Fast)
		fast, ferr := Parse(p, src)
		fastBodies := bodiesOf(fast)
		SetPath(Reference)
		ref, rerr := Parse(p, src)
		refBodies := bodiesOf(ref)
		if (ferr == nil) != (rerr == nil) || ferr != nil && ferr.Error() != rerr.Error() {
			t.Errorf("%s: fast path error %v, reference %v", p, ferr, rerr)
			continue
		}
		if !reflect.DeepEqual(fast, ref) {
			t.Errorf("%s: the fast path and the reference path read different files", p)
		}
		if !reflect.DeepEqual(fastBodies, refBodies) {
			t.Errorf("%s: the normal forms of its function bodies differ between the paths", p)
		}
	}
}

// bodiesOf is the normal form (or the error) of every function body f creates, on the current
// path.
func bodiesOf(f *File) []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, op := range f.Ops {
		fn := op.Func()
		if fn == nil || fn.Body == "" {
			continue
		}
		n, method, err := NormalizeBody(fn.Language, "", "void", fn.Body)
		if err != nil {
			n = "error: " + err.Error()
		}
		out = append(out, method+": "+n)
	}
	return out
}
