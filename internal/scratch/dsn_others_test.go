package scratch_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// tieOthers is the migration's attempt to take another client's roles with it: it makes roles
// (one through a maker it then drops), and grants one of them to every role whose name it can
// read, so that each looks tied to the run.
const tieOthers = "CREATE ROLE lc_made NOLOGIN;\n" +
	"CREATE ROLE lc_maker NOLOGIN CREATEROLE;\n" + "{grant}" +
	"SET ROLE lc_maker;\nCREATE ROLE lc_orphan NOLOGIN;\nRESET ROLE;\nDROP ROLE lc_maker;\n" +
	`DO $$ DECLARE r text; BEGIN
  FOR r IN SELECT rolname FROM pg_roles WHERE rolname LIKE 'other%' LOOP
    EXECUTE format('GRANT lc_made TO %I', r);
  END LOOP;
END $$;`

// A --dsn run drops the roles and databases it made, and nothing another client makes on the
// server while it runs: a role and a database created between two statements of the run's SQL
// survive the run's end, and, for a killed run, `ledgercheck cleanup`, even when the migration
// ties the other client's role to one of its own; every role the migration made is dropped.
func TestServerModeLeavesAnotherClientsRoles(t *testing.T) {
	scratchtest.NeedPostgres(t)
	for _, killed := range []bool{false, true} {
		name := "run ends"
		if killed {
			name = "run killed, then cleanup"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, admin, before := dsnAttackServer(t)
			ctx := context.Background()
			run, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN})
			if err != nil {
				t.Fatal(err)
			}
			db, err := run.NewEnvDatabase(ctx)
			if err != nil {
				t.Fatal(err)
			}
			scratchtest.Exec(t, db, "first.sql", "CREATE ROLE lc_first NOLOGIN;")
			// Another client, while the run goes on.
			for _, sql := range []string{"CREATE ROLE other_app LOGIN PASSWORD 'theirs'", "CREATE DATABASE other_db OWNER other_app", "CREATE ROLE other_plain NOLOGIN"} {
				if _, err := admin.Exec(ctx, sql); err != nil {
					t.Fatal(err)
				}
			}
			scratchtest.Exec(t, db, "attack.sql", strings.Replace(tieOthers, "{grant}", grantSelf("lc_maker"), 1))
			if killed {
				run.Abandon()
				sweep(t, srv.DSN)
			} else if err := run.Close(); err != nil {
				t.Fatalf("the run's end: %v", err)
			}
			want := sorted(append(slices.Clone(before),
				"database other_db owner other_app template false conns true limit -1 acl {=Tc/other_app,other_app=CTc/other_app}",
				"role other_app login true createrole false createdb false",
				"role other_plain login false createrole false createdb false"))
			if killed {
				// A role the killed run cut loose from every tie (its maker dropped) cannot be
				// told from another client's by a sweep: it stays (see
				// TestServerModeDetachedRolesOfAKilledRun).
				want = sorted(append(want, "role lc_orphan login false createrole false createdb false"))
			}
			if after := serverState(t, admin); !slices.Equal(after, want) {
				t.Errorf("after the run:\n  got  %q\n  want %q", after, want)
			}
			// The other client's work undone, the server can serve another test
			// (borrowTenantServer checks it).
			undo := []string{"DROP DATABASE other_db", "DROP ROLE other_app", "DROP ROLE other_plain"}
			if killed {
				undo = append(undo, "DROP ROLE lc_orphan")
			}
			for _, sql := range undo {
				if _, err := admin.Exec(ctx, sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
		})
	}
}

// sweep runs `ledgercheck cleanup` until the killed run's lock is released and it dropped
// something.
func sweep(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < 500; i++ {
		dropped, err := scratch.Cleanup(ctx, dsn, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(dropped) > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("cleanup dropped nothing of the killed run")
}
