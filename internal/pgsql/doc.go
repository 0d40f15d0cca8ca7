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
// Columns count Unicode code points, not bytes, as SARIF's "unicodeCodePoints" column kind.
package pgsql
