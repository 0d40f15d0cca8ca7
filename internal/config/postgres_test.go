package config

import (
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// postgres: names the PostgreSQL major version the gate runs on, 15 or 17 (absent: 0, the
// environment's or the default); another is an input error at its line.
func TestPostgresVersion(t *testing.T) {
	for yaml, want := range map[string]int{"version: 2\npostgres: 17\n": 17, "version: 2\npostgres: 15\n": 15, "version: 2\n": 0} {
		c, err := Parse("c.yaml", []byte(yaml))
		if err != nil {
			t.Fatalf("%q: %v", yaml, err)
		}
		if c.Postgres != want {
			t.Errorf("%q: postgres %d, want %d", yaml, c.Postgres, want)
		}
	}
	_, err := Parse("c.yaml", []byte("version: 2\nrerun:\n  times: 2\npostgres: 16\n"))
	if want := "c.yaml:4: postgres 16: ledgercheck runs PostgreSQL 15 or 17"; err == nil || err.Error() != want || fault.KindOf(err) != fault.KindInput {
		t.Errorf("postgres: 16: %v, want the input error %q", err, want)
	}
}
