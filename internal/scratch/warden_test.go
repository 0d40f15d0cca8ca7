package scratch_test

// The warden (warden.go): what user SQL tries to change of the run's role and databases waits for
// the warden, which stops it and charges the statement that did it, whichever script ran
// beside it; a SQLSTATE user SQL raises itself is the SQL's.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// selfInflicted runs sql in db and returns the *SelfInflicted it must fail with.
func selfInflicted(t *testing.T, db *scratch.Database, sql string) (*scratch.ScriptError, *scratch.SelfInflicted) {
	t.Helper()
	err := sqlscript.ExecFile(context.Background(), db, "m.sql", []byte(sql))
	var se *scratch.ScriptError
	if !errors.As(err, &se) || se.SelfInflicted() == nil {
		t.Fatalf("got %v (kind %v), want a ScriptError whose Err is a *SelfInflicted", err, fault.KindOf(err))
	}
	return se, se.SelfInflicted()
}

// TestChangedPasswordIsChargedToItsStatement: ALTER ROLE ... PASSWORD waits for the warden, which
// stops it and charges its own line; the password never changed, so the next session logs in.
func TestChangedPasswordIsChargedToItsStatement(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1024)
	se, si := selfInflicted(t, db, "SELECT 1;\nCREATE TABLE public.w1 (id int);\nALTER ROLE CURRENT_USER PASSWORD 'mine';\nCREATE TABLE public.w2 (id int);\n")
	if se.Pos.Line != 3 || !strings.Contains(si.Msg, "password") || si.Timeout {
		t.Errorf("got %s, want the password change at m.sql:3", se)
	}
	scratchtest.Connect(t, db) // fails the test if the password changed
}

// TestChangeByTriggerIsChargedToItsStatement: a change made by code that a statement whose
// command tag says nothing of it runs (a trigger on INSERT) is stopped while that statement runs,
// and charged to it exactly.
func TestChangeByTriggerIsChargedToItsStatement(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1024)
	se, si := selfInflicted(t, db, `CREATE TABLE public.w3 (id int);
CREATE FUNCTION public.w3_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN EXECUTE format('ALTER DATABASE %I CONNECTION LIMIT 0', current_database()); RETURN NEW; END $$;
CREATE TRIGGER w3_trg BEFORE INSERT ON public.w3 FOR EACH ROW EXECUTE FUNCTION public.w3_trg();
INSERT INTO public.w3 VALUES (1);
CREATE TABLE public.w4 (id int);
`)
	if se.Pos.Line != 5 || !strings.Contains(si.Msg, "changed its own database") {
		t.Errorf("got %s, want the change at m.sql:5, the INSERT whose trigger made it", se)
	}
	scratchtest.Connect(t, db)
}

// TestRaisedSQLStateIsTheSQLs: a RAISE of an SQLSTATE that names a server condition (disk full,
// data corrupted, a crash) is the statement's failure, not the environment's; the server is up.
func TestRaisedSQLStateIsTheSQLs(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1024)
	for _, code := range []string{"53100", "53200", "58030", "XX001", "XX002", "57P02", "F0000"} {
		err := sqlscript.ExecFile(context.Background(), db, "raise.sql", []byte("SELECT 1;\nDO $$ BEGIN RAISE EXCEPTION 'pretend' USING ERRCODE = '"+code+"'; END $$;\n"))
		var se *scratch.ScriptError
		if !errors.As(err, &se) || se.PgError() == nil || se.PgError().Code != code || se.Pos.Line != 2 {
			t.Errorf("RAISE %s: got %v (kind %v), want the statement's failure at raise.sql:2", code, err, fault.KindOf(err))
		}
	}
}

// TestChangeIsChargedToTheScriptThatMadeIt: two scripts run at once on the same role; one makes
// its change inside a procedure that would commit it and go on. The change waits for the warden
// and is charged to the CALL, never to the other script's INSERT; the other succeeds.
func TestChangeIsChargedToTheScriptThatMadeIt(t *testing.T) {
	innocent, culprit := scratchtest.NewDatabase(t, 1024), scratchtest.NewDatabase(t, 1024)
	errs := make(chan error, 1)
	go func() {
		errs <- sqlscript.ExecFile(context.Background(), innocent, "innocent.sql", []byte("CREATE TABLE public.w5 (v text);\nINSERT INTO public.w5 SELECT pg_sleep(0.5)::text;\n"))
	}()
	err := sqlscript.ExecFile(context.Background(), culprit, "m.sql", []byte(`CREATE PROCEDURE public.w6() LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER ROLE %I SET local_preload_libraries = %L', current_user, 'nonexistent');
  COMMIT;
  PERFORM pg_sleep(1.5);
END $$;
CALL public.w6();
`))
	if err := <-errs; err != nil {
		t.Errorf("the innocent script: %v, want no error", err)
	}
	var se *scratch.ScriptError
	if !errors.As(err, &se) || se.SelfInflicted() == nil || se.Pos.Line != 7 || !strings.Contains(se.Error(), "changed a setting of the role it runs as") {
		t.Errorf("got %v, want the change at m.sql:7 (the CALL)", err)
	}
	scratchtest.Connect(t, innocent)
}

// wardenCases are the changes the warden stops, each from a DO block (SQL built at run time, as
// the run's database names are random), with the kind the message names. %[1]s is the
// database the script runs in, %[2]s another database of the run.
var wardenCases = []struct{ name, sql, want string }{
	{"connection-limit", "ALTER DATABASE %[1]s CONNECTION LIMIT 0", "changed its own database"},
	{"allow-connections-elsewhere", "ALTER DATABASE %[2]s ALLOW_CONNECTIONS false", "changed database ledgercheck_"},
	{"is-template", "ALTER DATABASE %[1]s IS_TEMPLATE true", "changed its own database"},
	{"revoke-connect", "REVOKE CONNECT ON DATABASE %[1]s FROM PUBLIC", "changed its own database"},
	{"revoke-connect-elsewhere", "REVOKE CONNECT, TEMPORARY ON DATABASE %[2]s FROM PUBLIC", "one of the run's"},
	{"database-setting", "ALTER DATABASE %[1]s SET default_transaction_read_only = on", "changed a setting"},
	{"role-in-database-setting", "ALTER ROLE CURRENT_USER IN DATABASE %[2]s SET role = anon", "changed a setting"},
	{"role-setting", "ALTER ROLE CURRENT_USER SET local_preload_libraries = nonexistent", "changed a setting"},
	{"role-reset", "ALTER ROLE CURRENT_USER RESET ALL", "changed a setting"},
	{"password", "ALTER ROLE CURRENT_USER PASSWORD 'chosen'", "changed the role it runs as"},
}

// TestEveryChangeToTheRunIsStopped: each change of wardenCases, made by code (an exception
// handler that swallows every error, even the cancel, included), is stopped at its statement with
// the kind it names, and afterwards every session of the run still connects (the install role
// and the digest reader, to both databases) and the databases are as they were.
func TestEveryChangeToTheRunIsStopped(t *testing.T) {
	db, other := scratchtest.NewDatabase(t, 1024), scratchtest.NewDatabase(t, 1024)
	ctx := context.Background()
	for _, c := range wardenCases {
		t.Run(c.name, func(t *testing.T) {
			stmt := strings.NewReplacer("%[1]s", "%1$I", "%[2]s", "%2$I").Replace(c.sql)
			sql := fmt.Sprintf("SELECT 1;\nDO $$ BEGIN EXECUTE format(%s, current_database(), %s); EXCEPTION WHEN OTHERS OR QUERY_CANCELED THEN NULL; END $$;\nSELECT 2;\n",
				quote(stmt), quote(other.Name))
			se, si := selfInflicted(t, db, sql)
			if se.Pos.Line != 2 || !strings.Contains(si.Msg, c.want) {
				t.Errorf("got %s, want the change at m.sql:2 saying %q", se, c.want)
			}
			for _, d := range []*scratch.Database{db, other} {
				scratchtest.Connect(t, d)
				r, err := d.ConnectReader(ctx)
				if err != nil {
					t.Fatalf("the reader no longer connects to %s: %v", d.Name, err)
				}
				r.Close(ctx)
			}
		})
	}
	admin := scratchtest.ConnectAdmin(t, db)
	var lim, settings int
	var allow, tmpl bool
	var acl *string
	if err := admin.QueryRow(ctx, `SELECT d.datconnlimit, d.datallowconn, d.datistemplate, d.datacl::text,
		(SELECT count(*) FROM pg_db_role_setting s WHERE s.setdatabase = d.oid)::int FROM pg_database d WHERE d.datname = $1`, other.Name).Scan(&lim, &allow, &tmpl, &acl, &settings); err != nil {
		t.Fatal(err)
	}
	if lim != -1 || !allow || tmpl || acl != nil || settings != 0 {
		t.Errorf("database %s changed: connection limit %d, allow connections %v, template %v, acl %v, %d settings", other.Name, lim, allow, tmpl, acl, settings)
	}
}

// TestChangeToAnotherDatabaseIsChargedToItsMaker: a script that sets ALLOW_CONNECTIONS false on
// the other databases of the run while another script runs code (a SELECT that sleeps, DO
// blocks) and connects again: the change is charged to the script that made it, every time, and
// the other script never fails. Run with -count and under load: the verdict does not move.
func TestChangeToAnotherDatabaseIsChargedToItsMaker(t *testing.T) {
	culprit, innocent := scratchtest.NewDatabase(t, 1024), scratchtest.NewDatabase(t, 1024)
	for i := range 3 {
		errs := make(chan error, 1)
		go func() {
			errs <- sqlscript.ExecFile(context.Background(), innocent, "innocent.sql", []byte(
				"DO $$ BEGIN PERFORM pg_sleep(0.2); END $$;\nSELECT pg_sleep(0.2);\nDO $$ BEGIN PERFORM 1; END $$;\n"))
		}()
		_, si := selfInflicted(t, culprit, fmt.Sprintf(`SELECT 1;
DO $$ BEGIN EXECUTE format('ALTER DATABASE %%I ALLOW_CONNECTIONS false', %s); END $$;
`, quote(innocent.Name)))
		if !strings.Contains(si.Msg, "changed database "+innocent.Name) {
			t.Errorf("round %d: %q, want the change to %s charged to the script that made it", i, si.Msg, innocent.Name)
		}
		if err := <-errs; err != nil {
			t.Errorf("round %d: the innocent script failed: %v", i, err)
		}
		scratchtest.Connect(t, innocent)
	}
}

// TestOrdinaryRoleWorkIsNotStopped: what a migration does with roles of its own, and with its
// database's comment, does not wait for the warden.
func TestOrdinaryRoleWorkIsNotStopped(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1024)
	// Roles are the cluster's: a name of each run's own, so that the test can run again (-count).
	role := fmt.Sprintf("lc_warden_reader_%d", ordinaryRuns.Add(1))
	err := sqlscript.ExecFile(context.Background(), db, "roles.sql", []byte(strings.ReplaceAll(`CREATE ROLE lc_warden_reader NOLOGIN;
ALTER ROLE lc_warden_reader SET statement_timeout = '5s';
GRANT lc_warden_reader TO CURRENT_USER;
GRANT lc_warden_reader TO service_role;
DO $$ BEGIN EXECUTE format('COMMENT ON DATABASE %I IS %L', current_database(), 'ledger'); END $$;
`, "lc_warden_reader", role)))
	if err != nil {
		t.Fatalf("got %v, want no error", err)
	}
}

// ordinaryRuns numbers the runs of TestOrdinaryRoleWorkIsNotStopped in this process.
var ordinaryRuns atomic.Int64

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestVacuumIsNotStopped: VACUUM records its database's frozen transaction id in the database's
// row, which the warden holds: it is let through, not stopped, and a change tried beside it
// (another script's) is still stopped and charged to that script.
func TestVacuumIsNotStopped(t *testing.T) {
	db, other := scratchtest.NewDatabase(t, 1024), scratchtest.NewDatabase(t, 1024)
	ctx := context.Background()
	errs := make(chan error, 1)
	go func() {
		errs <- sqlscript.ExecFile(ctx, other, "other.sql", []byte(fmt.Sprintf(
			"SELECT pg_sleep(0.1);\nDO $$ BEGIN EXECUTE format('ALTER DATABASE %%I CONNECTION LIMIT 0', %s); END $$;\n", quote(db.Name))))
	}()
	err := sqlscript.ExecFile(ctx, db, "vacuum.sql", []byte(`CREATE TABLE public.w7 (id int);
INSERT INTO public.w7 SELECT generate_series(1, 1000);
VACUUM public.w7;
VACUUM FULL public.w7;
VACUUM;
`))
	if err != nil {
		t.Errorf("VACUUM: %v, want no error", err)
	}
	var se *scratch.ScriptError
	if err := <-errs; !errors.As(err, &se) || se.SelfInflicted() == nil || se.Pos.Line != 2 || !strings.Contains(se.Error(), "changed database "+db.Name) {
		t.Errorf("the other script: %v, want its ALTER DATABASE at other.sql:2 stopped", err)
	}
	scratchtest.Connect(t, db)
}
