package cli

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestCheckRunsEveryStep: check runs every step of the gate, so that every other command's steps
// (lint --install's, parity's, rerun's, allowlist suggest's) are a subset of check's, through the
// same pipeline. internal/privileged's TestPrivilegedSessionsRunNoShadow relies on it: it runs check in
// place of the commands whose steps check's include. A step added to gate.Steps and not
// to check fails here.
func TestCheckRunsEveryStep(t *testing.T) {
	v := reflect.ValueOf(checkSteps)
	if v.NumField() < 7 {
		t.Fatalf("gate.Steps has %d fields; the test reads them all and expects at least the seven it was written for", v.NumField())
	}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Type.Kind() != reflect.Bool {
			t.Errorf("gate.Steps.%s is a %s: the test knows steps as bools", f.Name, f.Type)
			continue
		}
		if !v.Field(i).Bool() {
			t.Errorf("check does not run the step %s: other commands that run it are no subset of check", f.Name)
		}
	}
}

// TestCommandsReachServersThroughTheGate: no file of the package imports a database driver, so
// that what a command runs on a server is what internal/gate's steps (and internal/scratch's
// start and cleanup) run. internal/privileged's TestPrivilegedSessionsRunNoShadow relies on it with
// TestCheckRunsEveryStep.
func TestCommandsReachServersThroughTheGate(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("the package's files: %v, %v", files, err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/jackc/") || strings.HasPrefix(path, "database/sql") {
				t.Errorf("%s imports %s: a command reaches a server only through internal/gate", name, path)
			}
		}
	}
}
