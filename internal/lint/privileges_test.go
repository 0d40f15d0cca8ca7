package lint

import (
	"reflect"
	"testing"
)

// The environment's default privileges read from the scripts that mention ALTER DEFAULT
// PRIVILEGES are those read from every script, and there are some.
func TestEnvironmentDefaultsSkipOnlyScriptsWithout(t *testing.T) {
	all := environmentDefaults(func(string) bool { return true })
	if len(all) == 0 {
		t.Fatal("the environment sets no default privileges")
	}
	if got := EnvironmentDefaults(); !reflect.DeepEqual(got, all) {
		t.Errorf("EnvironmentDefaults() = %+v, every script gives %+v", got, all)
	}
	for _, s := range []string{"ALTER DEFAULT PRIVILEGES GRANT", "alter  default\n\tprivileges", "-- Alter Default Privileges"} {
		if !mayAlterDefaults(s) {
			t.Errorf("mayAlterDefaults(%q) = false", s)
		}
	}
	if mayAlterDefaults("-- default privileges in storage\nALTER TABLE t OWNER TO x;") {
		t.Error("mayAlterDefaults of a script without ALTER DEFAULT PRIVILEGES = true")
	}
}
