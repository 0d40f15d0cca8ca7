// Package pgsqltest has SQL generators for tests and benchmarks of ledgercheck's SQL front end.
package pgsqltest

import "strings"

// NestingCase is a construct that nests, and how deep pgsql.MaxNesting lets it go.
type NestingCase struct {
	Name string
	// SQL returns a statement (without its semicolon) nesting the construct n times.
	SQL func(n int) string
	// Under is the largest n pgsql parses; n+1 is refused.
	Under int
}

// NestingCases are the constructs the nesting limit (2000) bounds, each with the deepest
// nesting it lets through: one level per operator, call, parenthesis, bracket, cast or NOT, two
// per CASE, three per sub-select, half per UNION.
func NestingCases() []NestingCase {
	wrap := func(open, inner, close string) func(int) string {
		return func(n int) string { return "SELECT " + strings.Repeat(open, n) + inner + strings.Repeat(close, n) }
	}
	return []NestingCase{
		{"operator chain", func(n int) string { return "SELECT 1" + strings.Repeat(" + 1", n-1) }, 2001},
		{"concatenation", func(n int) string { return "SELECT 'a'" + strings.Repeat(" || 'a'", n-1) }, 2001},
		{"parentheses", wrap("(", "1", ")"), 2000},
		{"function calls", wrap("coalesce(", "1", ", 2)"), 2000},
		{"CASE", wrap("CASE WHEN true THEN ", "1", " END"), 1000},
		{"sub-selects", wrap("(SELECT ", "1", ")"), 666},
		{"EXISTS", wrap("EXISTS (SELECT ", "1", ")"), 666},
		{"casts", func(n int) string { return "SELECT 1" + strings.Repeat("::int", n) }, 2000},
		{"NOT", wrap("NOT ", "true", ""), 2000},
		{"arrays", wrap("ARRAY[", "1", "]"), 2000},
		{"UNION", func(n int) string { return "SELECT 1" + strings.Repeat(" UNION SELECT 1", n-1) }, 4001},
	}
}

// TinyStatements returns a migration of about size bytes made of the smallest statements,
// "SELECT 1;" on a line each, then the NOTIFY that ends a sidecar migration: the worst case per
// byte for whatever costs per statement (4 MiB is about 420,000 statements).
func TinyStatements(size int) []byte {
	const notify = "NOTIFY pgrst, 'reload schema';\n"
	const stmt = "SELECT 1;\n"
	return []byte(strings.Repeat(stmt, (size-len(notify))/len(stmt)) + notify)
}
