// Package pgsql is ledgercheck's SQL front end and the only package that imports pg_query_go.
//
// [Parse] reads a migration file into a [File]: its top-level statements, each with the exact
// 1-based line and column of its first token in the file the user passed (leading comments and
// white space skipped). A syntax error comes back as a [*SyntaxError] at its exact position.
//
// pg_query crashes the process on a statement nested tens of thousands of levels deep, so every
// parse is preceded by a non-recursive estimate of each statement's nesting ([MaxNesting]); a
// deeper statement is a [*SyntaxError] with TooComplex set (or a [Problem] inside a body), at the
// statement.
//
// Each statement becomes an [Op]: the common fields (position, context, verb, tag, objects,
// calls, search path, guards) and one typed detail per statement family ([Detail.Family]).
// analyze.go dispatches each parse-tree node to its family's handler; each family is a file of
// its own (stmt_tables.go, stmt_functions.go, stmt_grants.go, stmt_policies.go,
// stmt_attached.go for triggers, rules and indexes, stmt_session.go for transaction control,
// SET and NOTIFY, stmt_data.go for DML and COPY, stmt_do.go for DO and dynamic SQL, ...), with
// its handlers, its detail type and the detail's accessor on Op, so that a new statement kind is
// a handler in one file (docs/architecture.md, "Adding a statement kind").
//
// The grammar is PostgreSQL 16's ([GrammarVersion]: pg_query_go v5): syntax new in PostgreSQL
// 17 (JSON_TABLE, MERGE ... RETURNING, ...) is a syntax error here, though a 17 server takes it.
//
// Columns count Unicode code points, not bytes, as SARIF's "unicodeCodePoints" column kind.
package pgsql

// GrammarVersion is the PostgreSQL major version whose parser pg_query_go v5 embeds: a file it
// rejects, PostgreSQL 15 and 16 reject too, and 17 may take (syntax new in 17).
const GrammarVersion = 16
