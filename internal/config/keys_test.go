package config

import (
	"strings"
	"testing"
)

func TestUnknownKeySuggestion(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"version: 2\nartifact:\n  file: a.sql\n  dimm: 1536\n", "c.yaml:4:3: unknown key dimm (did you mean dim?)"},
		{"version: 2\nprerequisite:\n  openbrain: false\n", "c.yaml:2:1: unknown key prerequisite (did you mean prerequisites?)"},
		{"version: 2\nlint:\n  exposed_schema: [public]\n", "c.yaml:3:3: unknown key exposed_schema (did you mean exposed_schemas?)"},
		{"version: 2\nxyzzy: 1\n", "c.yaml:2:1: unknown key xyzzy (see the commented ledgercheck.yaml at the repository root for the keys)"},
	} {
		_, err := Parse("c.yaml", []byte(tc.yaml))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %s", tc.yaml, err, tc.want)
		}
	}
	if names := strings.Join(keyNames(&Config{}), " "); !strings.Contains(names, "statement_timeout") || strings.Contains(names, "Shared") {
		t.Errorf("keyNames: %s", names)
	}
}
