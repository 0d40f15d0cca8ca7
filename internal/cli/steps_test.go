package cli

import (
	"reflect"
	"testing"
)

// TestCheckRunsEveryStep: check runs every step of the gate, so that every other command's steps
// (lint --install's, parity's, rerun's, allowlist suggest's) are a subset of check's, through the
// same pipeline. internal/pgsql's TestPrivilegedSessionsRunNoShadow relies on it: on --dsn it runs
// check in place of the commands whose steps check's include. A step added to gate.Steps and not
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
