package scratch_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// endEverySession is user SQL that tries to end every other session on the server, whatever it
// is, after trying to give itself the role that may signal any session; every failure is
// swallowed, and the sessions it did end are kept in public.ended.
const endEverySession = `CREATE TABLE public.ended (pid integer);
DO $$
DECLARE r record;
BEGIN
  BEGIN
    EXECUTE 'GRANT pg_signal_backend TO ' || quote_ident(current_user);
  EXCEPTION WHEN OTHERS THEN NULL;
  END;
  FOR r IN SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() LOOP
    BEGIN
      IF pg_terminate_backend(r.pid) THEN
        INSERT INTO public.ended VALUES (r.pid);
      END IF;
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
  END LOOP;
END $$;
`

// TestUserSQLEndsNoSessionOfTheRun attacks the whole class of sessions the run opens: every way
// of connecting a [scratch.Database] offers (as the install role, the superuser, the reader, the
// observer), in the attacking SQL's own database and in another one, held open while that SQL
// tries to end every session on the server, as the install role and again as its database's
// login role (SET ROLE NONE). The SQL runs as a script, beside the sessions that may be open
// while one runs (the superuser's and the reader's: no session of user code is), and as user
// code outside a script (a probe's, say), beside all of them. A script ends its sentinel alone,
// and that is its finding at the statement that did it; user code ends nothing. Every other
// session still answers, except, after SET ROLE NONE, the install-role sessions of the SQL's
// own database (its own variant's).
// Both on the package's server and in a --dsn run.
func TestUserSQLEndsNoSessionOfTheRun(t *testing.T) {
	ctx := context.Background()
	dsn, err := scratch.Start(ctx, scratch.Options{DSN: scratchtest.SharedDSNServer(t).DSN})
	if err != nil {
		t.Fatal(err)
	}
	defer dsn.Close()
	for srv, s := range map[string]*scratch.Server{"embedded": scratchtest.Server(t), "dsn": dsn} {
		for _, script := range []bool{true, false} {
			for _, asLogin := range []bool{false, true} {
				name := srv + ", " + map[bool]string{true: "script", false: "user code"}[script] + map[bool]string{false: " as the install role", true: " as the login role"}[asLogin]
				t.Run(name, func(t *testing.T) { endEverySessionAs(t, s, script, asLogin) })
			}
		}
	}
}

func endEverySessionAs(t *testing.T, s *scratch.Server, script, asLogin bool) {
	ctx := context.Background()
	var dbs [2]*scratch.Database
	for i := range dbs {
		db, err := s.NewDatabase(ctx, 1536)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Drop(ctx) })
		dbs[i] = db
	}
	db, other := dbs[0], dbs[1]
	type session struct {
		what string
		conn *pgx.Conn
		own  bool // an install-role session of the SQL's own database
	}
	var sessions []session
	for _, d := range []*scratch.Database{db, other} {
		kinds := []struct {
			what    string
			connect func(context.Context) (*pgx.Conn, error)
			user    bool // a session of user code, never open while a script runs
		}{
			{"install role", d.Connect, true}, {"superuser", d.ConnectAdmin, false},
			{"reader", d.ConnectReader, false}, {"observer", d.ConnectObserver, true},
		}
		for _, c := range kinds {
			if script && c.user {
				continue
			}
			conn, err := c.connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close(ctx) })
			sessions = append(sessions, session{c.what + " in " + d.Name, conn, d == db && c.what == "install role"})
		}
	}
	src := endEverySession
	if asLogin {
		src = "SET ROLE NONE;\n" + src
	}
	if script {
		f, err := sqlscript.Parse("end.sql", []byte(src), 1536)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Exec(ctx, sqlscript.Script(f))
		var se *scratch.ScriptError
		if !errors.As(err, &se) || se.SelfInflicted() == nil || se.SelfInflicted().Msg != scratch.SessionEnding {
			t.Fatalf("Exec: %v; want the finding that it ended a session of postgres", err)
		}
		if want := strings.Count(src[:strings.Index(src, "DO $$")], "\n") + 1; se.Pos.Line != want {
			t.Errorf("the finding is at %s, want line %d (the DO block)", se.Pos, want)
		}
	} else if err := sessions[0].conn.PgConn().Exec(ctx, src).Close(); err != nil {
		t.Fatalf("user code: %v", err)
	}
	check, err := db.ConnectAdmin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close(ctx)
	rows, err := check.Query(ctx, "SELECT pid FROM public.ended")
	if err != nil {
		t.Fatal(err)
	}
	ended, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
	if err != nil {
		t.Fatal(err)
	}
	owns := 0
	for i, s := range sessions {
		if !script && i == 0 {
			continue // the attacker's own
		}
		gone := slices.Contains(ended, s.conn.PgConn().PID())
		if s.own && asLogin {
			if gone {
				owns++
			}
			continue // its own variant's session: the login role may end it
		}
		if gone {
			t.Errorf("the SQL ended the %s session", s.what)
		}
		if _, err := s.conn.Exec(ctx, "SELECT 1"); err != nil {
			t.Errorf("the %s session no longer answers: %v", s.what, err)
		}
	}
	// A script ends its sentinel (and, as the login role, nothing else: no install-role session
	// is open beside it); user code ends no session but, as the login role, its own database's.
	if want := map[bool]int{true: 1, false: owns}[script]; len(ended) != want {
		t.Errorf("the SQL ended %d sessions, want %d", len(ended), want)
	}
}

// TestLoginRoleChangesAreStopped: user SQL that switches to its database's login role and
// changes that role's password or settings, which the run's later sessions in the database log
// in as, is stopped at the statement, as a change to the install role is (warden.go).
func TestLoginRoleChangesAreStopped(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1024)
	for _, stmt := range []string{
		"ALTER ROLE CURRENT_USER PASSWORD 'known';",
		"ALTER ROLE CURRENT_USER SET default_transaction_read_only = on;",
	} {
		f, err := sqlscript.Parse("login.sql", []byte("SET ROLE NONE;\n"+stmt+"\n"), 1024)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Exec(context.Background(), sqlscript.Script(f))
		var se *scratch.ScriptError
		if !errors.As(err, &se) || se.SelfInflicted() == nil || se.Pos.Line != 2 {
			t.Errorf("%s: got %v, want it stopped at login.sql:2", stmt, err)
		}
		later, err := db.Connect(context.Background())
		if err == nil {
			_, err = later.Exec(context.Background(), "SELECT 1")
			later.Close(context.Background()) // the next script waits for it
		}
		if err != nil {
			t.Errorf("%s: a later session of the database cannot work: %v", stmt, err)
		}
	}
}

// TestUserCodeOutsideScriptsIsNotCharged: a function of the migration that ends sessions when
// something other than a script runs it (a trigger that generated rows fire, a probe, a persona's
// request) runs on a session of user code, and while one is open no script runs: a script
// started meanwhile waits, and its sentinel is not ended by code that is not its own.
func TestUserCodeOutsideScriptsIsNotCharged(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1024)
	other := scratchtest.NewDatabase(t, 1024)
	user, err := other.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sqlscript.Parse("innocent.sql", []byte("SELECT 1;\nSELECT pg_sleep(0.2);\nSELECT 1;\n"), 1024)
	if err != nil {
		t.Fatal(err)
	}
	result := make(chan error, 1)
	go func() { result <- db.Exec(ctx, sqlscript.Script(f)) }()
	if _, err := user.Exec(ctx, `DO $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  WHILE clock_timestamp() < t0 + interval '0.6 seconds' LOOP
    PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid();
    PERFORM pg_sleep(0.01);
  END LOOP;
END $$`); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-result:
		t.Fatalf("the script ran while a session of user code was open (it returned %v)", err)
	default:
	}
	user.Close(ctx)
	if err := <-result; err != nil {
		t.Errorf("the script, run once the session of user code closed: %v; want no finding", err)
	}
}

// TestSentinelEndedBetweenScriptsIsNotTheNextScripts: a database's scripts share its sentinel,
// kept between them; one that user code outside the scripts ended (a probe, a persona's
// request) is replaced before the next script runs, which is not blamed for it, while a script
// that ends the replacement still is.
func TestSentinelEndedBetweenScriptsIsNotTheNextScripts(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1024)
	script := func(name, src string) *scratch.Script {
		f, err := sqlscript.Parse(name, []byte(src), 1024)
		if err != nil {
			t.Fatal(err)
		}
		return sqlscript.Script(f)
	}
	if err := db.Exec(ctx, script("first.sql", "SELECT 1;\n")); err != nil {
		t.Fatalf("first script: %v", err)
	}
	user, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ended int
	if err := user.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
 WHERE usename = current_user AND application_name = 'psql' AND pid <> pg_backend_pid()`).Scan(&ended); err != nil {
		t.Fatal(err)
	}
	user.Close(ctx)
	if ended != 1 {
		t.Fatalf("user code ended %d sessions of postgres named psql, want the kept sentinel alone", ended)
	}
	if err := db.Exec(ctx, script("second.sql", "SELECT 1;\nSELECT 2;\n")); err != nil {
		t.Errorf("the script after user code ended the kept sentinel: %v; want no finding", err)
	}
	err = db.Exec(ctx, script("third.sql", "SELECT 1;\nSELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid();\nSELECT 3;\n"))
	var se *scratch.ScriptError
	if !errors.As(err, &se) || se.Pos.Line != 2 || se.SelfInflicted() == nil || se.SelfInflicted().Msg != scratch.SessionEnding {
		t.Errorf("a script ending the sentinel: %v; want the session-ending finding at line 2", err)
	}
}
