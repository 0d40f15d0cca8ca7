package pgsql

import (
	"os"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// reflectWalk is the walk walk_gen.go replaces: every message of the tree through protoreflect,
// reporting FuncCall, TypeName and SQLValueFunction messages.
func reflectWalk(m protoreflect.Message, visit func(any)) {
	switch x := m.Interface().(type) {
	case *pg_query.FuncCall, *pg_query.TypeName, *pg_query.SQLValueFunction:
		visit(x)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind || fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				reflectWalk(v.List().Get(i).Message(), visit)
			}
		default:
			reflectWalk(v.Message(), visit)
		}
		return true
	})
}

// TestGeneratedWalkVisitsWhatReflectionVisits parses every SQL file of the repository and checks
// that the generated walk reports the same FuncCall, TypeName and SQLValueFunction messages as a walk through
// protoreflect (as a set: protoreflect's order is perturbed per binary on purpose).
func TestGeneratedWalkVisitsWhatReflectionVisits(t *testing.T) {
	paths := sqlFiles(t, repoSQL...)
	visited := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := pg_query.Parse(string(src))
		if err != nil {
			continue // a file that tests parse errors
		}
		for _, rs := range tree.Stmts {
			want := map[any]int{}
			reflectWalk(rs.Stmt.ProtoReflect(), func(x any) { want[x]++ })
			got := map[any]int{}
			c := &collector{visit: func(x any) { got[x]++ }}
			c.walkNode(rs.Stmt)
			if len(got) != len(want) {
				t.Errorf("%s: statement at %d: generated walk visits %d messages, protoreflect %d", p, rs.StmtLocation, len(got), len(want))
			}
			for x, n := range want {
				if got[x] != n {
					t.Errorf("%s: statement at %d: %T visited %d times, want %d", p, rs.StmtLocation, x, got[x], n)
				}
			}
			visited += len(want)
		}
	}
	if visited < 100 {
		t.Errorf("only %d FuncCall and TypeName messages in the test data", visited)
	}
}
