package main

import (
	"os"
	"testing"
)

// jsontreeGen is the generated file, from this package's directory.
const jsontreeGen = "../../pgsql/jsontree_gen.go"

// TestJSONTreeUpToDate fails when internal/pgsql/jsontree_gen.go differs from what genjsontree
// writes for the pg_query_go of go.mod; `go generate ./internal/pgsql` brings it up to date.
func TestJSONTreeUpToDate(t *testing.T) {
	have, err := os.ReadFile(jsontreeGen)
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != string(want) {
		t.Errorf("%s is out of date: run `go generate ./internal/pgsql`", jsontreeGen)
	}
}
