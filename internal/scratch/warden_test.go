package scratch_test

// The warden (warden.go): what user SQL does to the run's role and databases is put back and
// charged to the statement that did it; a SQLSTATE user SQL raises itself is the SQL's.

import (
	"context"
	"errors"
	"strings"
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

// TestChangedPasswordIsChargedToItsStatement: ALTER ROLE ... PASSWORD is charged to its own line
// exactly, and the next session of the run logs in with the run's password again.
func TestChangedPasswordIsChargedToItsStatement(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1024)
	se, si := selfInflicted(t, db, "SELECT 1;\nCREATE TABLE public.w1 (id int);\nALTER ROLE CURRENT_USER PASSWORD 'mine';\nCREATE TABLE public.w2 (id int);\n")
	if se.Pos.Line != 3 || !strings.Contains(si.Msg, "password") || strings.Contains(si.Msg, "since line") || si.Timeout {
		t.Errorf("got %s, want the password change at m.sql:3, charged exactly", se)
	}
	scratchtest.Connect(t, db) // fails the test if the password was not put back
}

// TestChangeByTriggerIsChargedWithItsRange: a change made by code that a statement whose command
// tag says nothing runs (a trigger on INSERT) is found at the end of the script, charged to its
// last statement with the range since the last check, and put back.
func TestChangeByTriggerIsChargedWithItsRange(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1024)
	se, si := selfInflicted(t, db, `CREATE TABLE public.w3 (id int);
CREATE FUNCTION public.w3_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN EXECUTE format('ALTER DATABASE %I CONNECTION LIMIT 0', current_database()); RETURN NEW; END $$;
CREATE TRIGGER w3_trg BEFORE INSERT ON public.w3 FOR EACH ROW EXECUTE FUNCTION public.w3_trg();
INSERT INTO public.w3 VALUES (1);
CREATE TABLE public.w4 (id int);
`)
	if se.Pos.Line != 6 || !strings.Contains(si.Msg, "CONNECTION LIMIT 0 on its own database") || !strings.Contains(si.Msg, "since line 1") {
		t.Errorf("got %s, want the change at m.sql:6 (the last statement), since line 1", se)
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

// TestVerifies: the password check reads the verifiers PostgreSQL writes, SCRAM and MD5, and
// tells the password from any other.
func TestVerifies(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1024)
	ctx := context.Background()
	conn, err := db.ConnectAdmin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, enc := range []string{"scram-sha-256", "md5"} {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var v string
		if _, err := tx.Exec(ctx, "SET LOCAL password_encryption = '"+enc+"'"); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "CREATE ROLE lc_verifier PASSWORD 'right one'"); err != nil {
			t.Fatal(err)
		}
		if err := tx.QueryRow(ctx, "SELECT rolpassword FROM pg_catalog.pg_authid WHERE rolname = 'lc_verifier'").Scan(&v); err != nil {
			t.Fatal(err)
		}
		tx.Rollback(ctx)
		if !scratch.Verifies(v, "lc_verifier", "right one") || scratch.Verifies(v, "lc_verifier", "wrong one") {
			t.Errorf("%s verifier %q: the right password must verify and the wrong one not", enc, v)
		}
	}
	if scratch.Verifies("", "x", "") || scratch.Verifies("SCRAM-SHA-256$0:AA==$AA==:AA==", "x", "") {
		t.Error("an empty or malformed verifier verifies")
	}
}

// TestChangeIsChargedToTheScriptThatMadeIt: two scripts run at once on the same role; one makes
// its change inside a procedure that commits and then goes on, so the other's check at its end
// finds it while the CALL still runs. The change waits for the CALL, which runs code, and is
// charged to it rather than to the other script's INSERT, which ran none; the other succeeds.
// (Had the CALL's commit come after the other's check, its own check would find it: the same
// outcome.)
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
	if !errors.As(err, &se) || se.SelfInflicted() == nil || se.Pos.Line != 7 || !strings.Contains(se.Error(), "local_preload_libraries=nonexistent on the role it runs as") {
		t.Errorf("got %v, want the change at m.sql:7 (the CALL)", err)
	}
	scratchtest.Connect(t, innocent)
}
