package pgsql

import (
	"encoding/json"
	"os"
	"sync/atomic"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The package reads pg_query's trees through two functions, and only these: parseTree (SQL)
// and plpgsqlTree (PL/pgSQL). Each has a fast path and a reference path, and
// LEDGERCHECK_PGSQL_PATH=reference (or, in tests, SetPath) selects one for every parse:
//
//   - Fast: SQL trees come from pg_query's JSON, decoded by decodeTree (jsontree.go, driven by
//     the pg_query structs' protobuf tags and the generated jsontree_gen.go), at about half the
//     cost of pg_query.Parse; PL/pgSQL's JSON is decoded by decodeJSON (json.go). Each falls
//     back to the reference for anything it is not sure of.
//   - Reference: pg_query.Parse (its protobuf) and encoding/json: what the fast path must
//     equal (TestBothPathsReadTheSame), and the path to take when moving to a new grammar
//     (a pg_query_go whose structs the fast path does not know yet).

// Path is how the package reads pg_query's trees.
type Path int32

const (
	// Fast decodes pg_query's JSON with the package's own decoders (the default).
	Fast Path = iota
	// Reference reads SQL with pg_query.Parse and PL/pgSQL's JSON with encoding/json.
	Reference
)

// PathEnv is the environment variable that selects the reference path when it is "reference".
const PathEnv = "LEDGERCHECK_PGSQL_PATH"

var path atomic.Int32

func init() {
	if os.Getenv(PathEnv) == "reference" {
		path.Store(int32(Reference))
	}
}

// parseTree is pg_query.Parse: the same tree and the same errors, on the fast path at about half
// the cost (pg_query writes its JSON in a third of the time its protobuf takes: protobuf-c
// visits every field of Node's 250-case oneof for every node, twice). A tree decodeTree is not
// sure of is parsed again through pg_query.Parse. Every parse of SQL goes through it (see
// [parse]).
func parseTree(sql string) (*pg_query.ParseResult, error) {
	if Path(path.Load()) == Reference {
		return pg_query.Parse(sql)
	}
	js, err := pg_query.ParseToJSON(sql)
	if err != nil {
		return nil, err
	}
	tree := &pg_query.ParseResult{}
	if decodeTree(js, sql, tree) {
		return tree, nil
	}
	return pg_query.Parse(sql)
}

// treeError is a PL/pgSQL tree encoding/json does not take.
type treeError struct{ err error }

func (e *treeError) Error() string { return "unexpected PL/pgSQL parse tree: " + e.err.Error() }
func (e *treeError) Unwrap() error { return e.err }

// plpgsqlTree is pg_query's PL/pgSQL tree of sql (a CREATE FUNCTION or DO statement) as
// json.Unmarshal into an any gives it, behind [checkNesting] at [MaxNesting]: a list of
// functions. A tree that does not decode is a *treeError.
func plpgsqlTree(sql string) (any, error) {
	if err := checkNesting(sql, MaxNesting); err != nil {
		return nil, err
	}
	js, err := pg_query.ParsePlPgSqlToJSON(sql)
	if err != nil {
		return nil, err
	}
	if Path(path.Load()) == Fast {
		if v, ok := decodeJSON(js); ok {
			return v, nil
		}
	}
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		return nil, &treeError{err}
	}
	return v, nil
}
