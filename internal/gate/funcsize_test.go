package gate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the most lines a hand-written function may have, its signature and closing
// brace included.
const maxFuncLines = 100

// TestNoFunctionOverAHundredLines parses every .go file of the module, tests included, that is
// not generated (a "Code generated ... DO NOT EDIT." comment) and fails on a function or method
// longer than maxFuncLines: a function that long does several things, each of which deserves
// a name (a test's cases belong in a table, its checks in named helpers).
func TestNoFunctionOverAHundredLines(t *testing.T) {
	root := "../.."
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		files++
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: %s is %d lines long (at most %d): split it into functions that each do one thing", fset.Position(fd.Pos()), fd.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d files read from %s: the walk does not see the module", files, root)
	}
}
