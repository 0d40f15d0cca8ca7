package install

import (
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// The remembered normalizer answers as the parser does, the first time and the next.
func TestNormalizeBodyRemembers(t *testing.T) {
	for _, b := range []pgsql.FunctionBody{
		{Language: "plpgsql", Result: "integer", Body: "begin  RETURN 1; -- one\nend"},
		{Language: "sql", Result: "integer", Body: "select 1"},
		{Language: "plpgsql", Result: "void", Body: "begin not sql at all"},
	} {
		norm, method, err := pgsql.NormalizeBody(b.Language, b.Arguments, b.Result, b.Body)
		for range 2 {
			n, m, e := normalizeBody(b.Language, b.Arguments, b.Result, b.Body)
			if n != norm || m != method || (e == nil) != (err == nil) {
				t.Errorf("%q: remembered (%q, %q, %v), parser (%q, %q, %v)", b.Body, n, m, e, norm, method, err)
			}
		}
	}
}
