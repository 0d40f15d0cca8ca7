package gate

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// module is the module path every package of the tree starts with.
const module = "github.com/ledgercheck/ledgercheck/"

// TestImportsFollowTheLayers keeps the dependency order of docs/architecture.md true: it reads
// the layers block of its "Packages" section (one layer per line, from the top), derives the
// import graph from `go list -json` (non-test imports of every package, the developer tools
// included), and fails on an import of a package of the same layer or of a layer above, and
// on a package the block does not place.
func TestImportsFollowTheLayers(t *testing.T) {
	layer := docLayers(t)
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(p.ImportPath, module)
		from, ok := layer[rel]
		if !ok {
			t.Errorf("docs/architecture.md: the layers block does not place package %s", rel)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			to := strings.TrimPrefix(imp, module)
			if l, ok := layer[to]; ok && l <= from {
				t.Errorf("%s (layer %d) imports %s (layer %d): against the order of docs/architecture.md", rel, from+1, to, l+1)
			}
		}
	}
}

// docLayers returns each package's layer (0 the top) from the first text block after "Imports go
// downwards" in docs/architecture.md.
func docLayers(t *testing.T) map[string]int {
	t.Helper()
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "\nImports go downwards.")
	if !ok {
		t.Fatal(`docs/architecture.md has no "Imports go downwards." paragraph`)
	}
	_, block, ok := strings.Cut(after, "\n```text\n")
	block, _, ok2 := strings.Cut(block, "\n```\n")
	if !ok || !ok2 {
		t.Fatal("docs/architecture.md: no ```text block of layers after \"Imports go downwards.\"")
	}
	layer := map[string]int{}
	for i, line := range strings.Split(block, "\n") {
		for _, pkg := range strings.Fields(line) {
			if prev, dup := layer[pkg]; dup {
				t.Errorf("docs/architecture.md: %s is in layers %d and %d", pkg, prev+1, i+1)
			}
			layer[pkg] = i
		}
	}
	return layer
}

// listedPackage is what the test reads of `go list -json`.
type listedPackage struct {
	ImportPath string
	Imports    []string
}

// goListModule runs go list with flags on every package of the module, from its root: ./...
// and the developer tools (internal/cmd), which go.mod keeps out of ./....
func goListModule(flags ...string) ([]byte, error) {
	tools, _ := filepath.Glob("../../internal/cmd/*")
	args := append(append([]string{"list"}, flags...), "./...")
	for _, d := range tools {
		args = append(args, "./"+strings.TrimPrefix(filepath.ToSlash(d), "../../"))
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	return cmd.Output()
}

// listPackages lists every package of the module with its imports.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	out, err := goListModule("-json=ImportPath,Imports")
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list -json: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	return pkgs
}
