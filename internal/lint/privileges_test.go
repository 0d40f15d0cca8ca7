package lint

import (
	"reflect"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch/env"
)

// The environment's default privileges read from the statements that mention ALTER DEFAULT
// PRIVILEGES are those read from every script parsed whole, and there are some.
func TestEnvironmentDefaultsSkipOnlyScriptsWithout(t *testing.T) {
	var all []DefaultPrivilege
	for _, s := range env.Database(InstallRole, "supabase_admin") {
		f, err := pgsql.Parse(s.Name, []byte(s.SQL))
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Ops {
			all = append(all, defaultsOf(&f.Ops[i])...)
		}
	}
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
	if !mayAlterDefaults("alter default privilegeſx") { // the expression folds s to ſ, and \b is ASCII
		t.Error("mayAlterDefaults of privilegeſx = false")
	}
	if mayAlterDefaults("-- default privileges in storage\nALTER TABLE t OWNER TO x;") {
		t.Error("mayAlterDefaults of a script without ALTER DEFAULT PRIVILEGES = true")
	}
}
