package config

import (
	"path/filepath"
	"testing"
	"time"
)

// A locks section that a reviewer could misread is refused at its line: an acceptance without
// its schema, with a mode PostgreSQL does not have, without a reason, a rewrite accepted below
// ACCESS EXCLUSIVE, a statement that is not a command tag, a negative slow_statement.
func TestLocksSectionRefusesWhatItCannotReview(t *testing.T) {
	head := "version: 2\nlocks:\n  accept:\n"
	for _, tc := range []struct{ yaml, want string }{
		{head + "    - {table: agent_memories, mode: SHARE, reason: r}\n", `c.yaml:4: locks.accept: table "agent_memories": want the table with its schema, e.g. public.agent_memories`},
		{head + "    - {table: public.t, mode: ROW SHARE EXCLUSIVE, reason: r}\n", `c.yaml:4: locks.accept entry for public.t: mode "ROW SHARE EXCLUSIVE": want a lock mode as SQL writes it (SHARE, SHARE ROW EXCLUSIVE, EXCLUSIVE, ACCESS EXCLUSIVE, ...)`},
		{head + "    - {table: public.t, mode: SHARE}\n", "c.yaml:4: locks.accept entry for public.t: no reason; a reviewer needs one"},
		{head + "    - {table: public.t, mode: SHARE, rewrite: true, reason: r}\n", "c.yaml:4: locks.accept entry for public.t: rewrite: true needs mode ACCESS EXCLUSIVE (a rewrite takes it)"},
		{head + "    - {table: public.t, mode: SHARE, statements: [create trigger], reason: r}\n", `c.yaml:4: locks.accept entry for public.t: statement "create trigger": want a command tag in capitals (CREATE TRIGGER, DROP TRIGGER, ...)`},
		{"version: 2\nlocks:\n  slow_statement: -1s\n", "c.yaml:3: locks.slow_statement -1s is negative"},
	} {
		_, err := Parse("c.yaml", []byte(tc.yaml))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %s", tc.yaml, err, tc.want)
		}
	}
}

// table_stats is a path relative to the configuration, like the fixture, and each acceptance
// says where it is in the file.
func TestLocksSectionLoads(t *testing.T) {
	c, err := Parse(filepath.Join("dir", "c.yaml"), []byte("version: 2\ntable_stats: stats/prod.json\nlocks:\n  slow_statement: 250ms\n  accept:\n    - table: public.agent_memories\n      mode: share row exclusive\n      statements: [CREATE TRIGGER]\n      reason: the enrollment trigger\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.TableStats != filepath.Join("dir", "stats", "prod.json") || c.Locks.SlowStatement != 250*time.Millisecond {
		t.Errorf("table_stats %q, slow_statement %s", c.TableStats, c.Locks.SlowStatement)
	}
	if a := c.LockAcceptances(); len(a) != 1 || a[0].Where != filepath.Join("dir", "c.yaml")+":6" || a[0].Table != "public.agent_memories" {
		t.Errorf("acceptances %+v", a)
	}
}
