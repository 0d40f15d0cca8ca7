package introspect

import (
	"fmt"
	"testing"
)

// largeFacts is a snapshot the size of BenchmarkSnapshotLarge's, built in memory: 1,000 tables
// (10 columns, 3 indexes, a constraint, a policy, grants) and 500 functions.
func largeFacts() *Snapshot {
	s := &Snapshot{}
	acl := []Grant{{Grantee: "anon", Privileges: []string{"SELECT"}}, {Grantee: "service_role", Privileges: []string{"ALL"}}}
	for i := range 1000 {
		t := Table{Schema: "public", Name: fmt.Sprintf("big_%d", i), Kind: "table", Persistence: "permanent", Owner: "postgres",
			RLS: true, ReplicaIdentity: "default", ACL: acl, Comment: "table"}
		for c := range 10 {
			t.Columns = append(t.Columns, Column{Name: fmt.Sprintf("c%d", c), Position: c + 1, Type: "text", ACL: acl[:1]})
		}
		for x := range 3 {
			t.Indexes = append(t.Indexes, Index{Schema: "public", Name: fmt.Sprintf("big_%d_%d", i, x), Definition: "CREATE INDEX ...", Method: "btree"})
		}
		t.Constraints = []Constraint{{Name: t.Name + "_pkey", Type: "primary key", Definition: "PRIMARY KEY (id)"}}
		s.Tables = append(s.Tables, t)
		s.Policies = append(s.Policies, Policy{Table: "public." + t.Name, Name: "p", Permissive: true, Command: "all", Roles: []string{"service_role"}, Using: "true"})
	}
	for i := range 500 {
		s.Functions = append(s.Functions, Function{Schema: "public", Name: fmt.Sprintf("big_fn_%d", i), ArgTypes: "bigint, text",
			Kind: "function", Language: "plpgsql", Volatility: "stable", Parallel: "unsafe", Cost: 100, Config: []string{"search_path=''"},
			Owner: "postgres", ACL: acl, Body: "BEGIN RETURN 1; END", BodyNormalized: "BEGIN RETURN 1; END"})
	}
	s.Normalize()
	return s
}

func BenchmarkFacts(b *testing.B) {
	s := largeFacts()
	b.ReportAllocs()
	for b.Loop() {
		s.Facts()
	}
}
