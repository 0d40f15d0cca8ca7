package rerun

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// repo is the repository root, relative to this package's directory.
const repo = "../.."

// caseSpec is testdata/rerun/<case>/case.json. Every field is optional; paths are relative to the
// repository root.
type caseSpec struct {
	// Input is the migration (default: the case's input.sql).
	Input string `json:"input"`
	// Previous is the previous version for the upgrade audit (default: the case's previous.sql,
	// if any).
	Previous string `json:"previous"`
	// Fixture is loaded after the install (default: the case's fixture.sql, if any; no fixture
	// otherwise).
	Fixture string `json:"fixture"`
	// Dim is the vector dimension (default 1536).
	Dim int `json:"dim"`
	// Times is how many times the input is applied (default 3).
	Times int `json:"times"`
}

// loadCase reads a case directory into audit options. Script names are repository-relative, as
// a user running ledgercheck from the root would see them.
func loadCase(t testing.TB, dir string) Options {
	t.Helper()
	var spec caseSpec
	if b, err := os.ReadFile(filepath.Join(repo, dir, "case.json")); err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&spec); err != nil {
			t.Fatalf("%s/case.json: %v", dir, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	orDefault := func(p, name string) string {
		if p != "" {
			return p
		}
		if _, err := os.Stat(filepath.Join(repo, dir, name)); err == nil {
			return dir + "/" + name
		}
		return ""
	}
	read := func(p string) *SQLFile {
		if p == "" {
			return nil
		}
		src, err := os.ReadFile(filepath.Join(repo, p))
		if err != nil {
			t.Fatal(err)
		}
		return &SQLFile{Name: p, Src: src}
	}
	in := read(orDefault(spec.Input, "input.sql"))
	if in == nil {
		t.Fatalf("%s: no input.sql and no input in case.json", dir)
	}
	opts := Options{File: *in, Dim: spec.Dim, Times: spec.Times,
		Previous: read(orDefault(spec.Previous, "previous.sql")), Fixture: read(orDefault(spec.Fixture, "fixture.sql"))}
	if opts.Dim == 0 {
		opts.Dim = 1536
	}
	return opts
}
