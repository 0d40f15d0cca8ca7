// Package golden compares test output with golden files under testdata/, and rewrites them when
// the tests run with -update (go test ./PKG -run TEST -update, in a package whose tests import
// it; then review the diff like code). Each message names that command.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Update is the -update flag of every test binary that imports this package.
var Update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing with them")

// Check compares got with the golden file at path (line endings normalized), or writes got there
// under -update. A mismatch fails the test with a line diff.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s creates it; review it before committing)", err, UpdateCommand(t))
	}
	want = bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n"))
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the output (%s to accept, then review the diff):\n%s", path, UpdateCommand(t), LineDiff(string(want), string(got)))
	}
}

// UpdateCommand is the command that rewrites the golden files of t's test: go test on t's
// package with -run naming t's top-level test and -update. Only the packages whose tests
// import golden take the flag, so `go test ./... -update` fails in the others.
func UpdateCommand(t testing.TB) string {
	top, _, _ := strings.Cut(t.Name(), "/")
	return "go test " + pkgDir + " -run '^" + top + "$' -update"
}

// pkgDir is the test binary's package, relative to the module's root ("./internal/parity"):
// its working directory when it starts, before any test changes it.
var pkgDir = func() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}()

// LineDiff renders the lines of want and got that differ, "-" for want and "+" for got, with the
// common prefix and suffix left out.
func LineDiff(want, got string) string {
	w := strings.Split(want, "\n")
	g := strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	j, k := len(w), len(g)
	for j > i && k > i && w[j-1] == g[k-1] {
		j--
		k--
	}
	var b strings.Builder
	for _, l := range w[i:j] {
		b.WriteString("- " + l + "\n")
	}
	for _, l := range g[i:k] {
		b.WriteString("+ " + l + "\n")
	}
	return b.String()
}
