package main

import (
	"os"
	"testing"
)

// walkGen is the generated file, from this package's directory.
const walkGen = "../../pgsql/walk_gen.go"

// TestWalkUpToDate fails when internal/pgsql/walk_gen.go differs from what genwalk writes for
// the pg_query_go of go.mod; `go generate ./internal/pgsql` brings it up to date.
func TestWalkUpToDate(t *testing.T) {
	have, err := os.ReadFile(walkGen)
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != string(want) {
		t.Errorf("%s is out of date: run `go generate ./internal/pgsql`", walkGen)
	}
}
