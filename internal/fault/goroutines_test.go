package fault

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// unrecovered returns the goroutines of file that do not defer the recover helper directly: a
// go statement whose function is not a literal that defers fault.Recover (Recover inside this
// package), and a call X.Go(func() { ... }) (sync.WaitGroup.Go) whose literal does not either.
// X.Go(func() error { ... }) is a [Group]'s, which recovers itself.
func unrecovered(fset *token.FileSet, file *ast.File) []string {
	var out []string
	check := func(pos token.Pos, fn ast.Expr) {
		lit, ok := fn.(*ast.FuncLit)
		if !ok || !defersRecover(lit.Body) {
			out = append(out, fset.Position(pos).String())
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			check(n.Pos(), n.Call.Fun)
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Go" || len(n.Args) != 1 {
				return true
			}
			if lit, ok := n.Args[0].(*ast.FuncLit); ok && lit.Type.Results.NumFields() > 0 {
				return true // a Group's function: it returns its error, the group recovers it
			}
			check(n.Pos(), n.Args[0])
		}
		return true
	})
	return out
}

// defersRecover reports whether body has, among its own statements, defer fault.Recover(...)
// (or defer Recover(...) in package fault).
func defersRecover(body *ast.BlockStmt) bool {
	for _, st := range body.List {
		d, ok := st.(*ast.DeferStmt)
		if !ok {
			continue
		}
		switch f := d.Call.Fun.(type) {
		case *ast.SelectorExpr:
			if x, ok := f.X.(*ast.Ident); ok && x.Name == "fault" && f.Sel.Name == "Recover" {
				return true
			}
		case *ast.Ident:
			if f.Name == "Recover" {
				return true
			}
		}
	}
	return false
}

// TestEveryGoroutineDefersRecover: every goroutine the module's code starts (every non-test .go
// file, generated and helper packages included) defers fault.Recover, so a panic in it is one
// line and exit 3 after the cleanups, never a crash that leaves servers and directories behind.
func TestEveryGoroutineDefersRecover(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, at := range unrecovered(fset, f) {
			rel, _ := filepath.Rel(root, strings.SplitN(at, ":", 2)[0])
			t.Errorf("%s%s: a goroutine that does not defer fault.Recover (a panic in it would end the process without cleanup); defer it first thing, or use fault.Group", rel, at[strings.Index(at, ":"):])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d files under %s; the module has more", files, root)
	}
}

// TestUnrecoveredFindsTheUnguarded: the checker flags each way of starting a goroutine without
// the helper, and passes the guarded ones.
func TestUnrecoveredFindsTheUnguarded(t *testing.T) {
	src := `package p
func f() {
	go work()                                        // 3: a named function
	go func() { work() }()                           // 4: no defer
	go func() { defer other(); work() }()            // 5: another defer
	go func() { func() { defer fault.Recover(&err) }() }() // 6: the defer is in a nested function
	wg.Go(func() { work() })                         // 7: sync.WaitGroup.Go without it
	go func() { var err error; defer fault.Recover(&err); work() }()
	wg.Go(func() { defer fault.Recover(&errs[0]); work() })
	g.Go(func() error { return work() })
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, at := range unrecovered(fset, f) {
		var l, c int
		if _, err := fmtSscan(at, &l, &c); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if want := []int{3, 4, 5, 6, 7}; !equalInts(lines, want) {
		t.Errorf("flagged lines %v, want %v", lines, want)
	}
}

func fmtSscan(at string, l, c *int) (int, error) {
	_, err := fmt.Sscanf(at[strings.Index(at, ":")+1:], "%d:%d", l, c)
	return 2, err
}

func equalInts(a, b []int) bool { return slices.Equal(a, b) }
