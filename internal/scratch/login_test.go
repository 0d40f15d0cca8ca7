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

// TestUserSQLEndsNoSessionButTheSentinel attacks the whole class of sessions the run opens:
// every way of connecting a [scratch.Database] offers (as the install role, the superuser, the
// reader, the observer), in the script's own database and in another one, held open while a
// script tries to end every session on the server, as the install role and again as its
// database's login role (SET ROLE NONE). The script ends the sentinel alone, and that is its
// finding at the statement that did it; every session of the run still answers, except, after
// SET ROLE NONE, the install-role sessions of the script's own database (its own variant's).
func TestUserSQLEndsNoSessionButTheSentinel(t *testing.T) {
	for _, asLogin := range []bool{false, true} {
		name := "as the install role"
		if asLogin {
			name = "as the login role"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := scratchtest.NewDatabase(t, 1536)
			other := scratchtest.NewDatabase(t, 1536)
			type session struct {
				what string
				conn *pgx.Conn
				own  bool // the script's database's install-role session
			}
			var sessions []session
			for _, d := range []*scratch.Database{db, other} {
				for _, c := range []struct {
					what    string
					connect func(context.Context) (*pgx.Conn, error)
				}{
					{"install role", d.Connect}, {"superuser", d.ConnectAdmin},
					{"reader", d.ConnectReader}, {"observer", d.ConnectObserver},
				} {
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
			for _, s := range sessions {
				pid := s.conn.PgConn().PID()
				gone := slices.Contains(ended, pid)
				if s.own && asLogin {
					continue // its own variant's session: the login role may end it
				}
				if gone {
					t.Errorf("the script ended the %s session", s.what)
				}
				if _, err := s.conn.Exec(ctx, "SELECT 1"); err != nil {
					t.Errorf("the %s session no longer answers: %v", s.what, err)
				}
			}
			// As the install role it can end the sentinel alone; as the login role, the sentinel
			// and its own database's install-role session.
			if len(ended) == 0 || !asLogin && len(ended) != 1 {
				t.Errorf("the script ended %d sessions, want the sentinel (and, as the login role, its own database's session)", len(ended))
			}
		})
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
		if _, err := scratchtest.Connect(t, db).Exec(context.Background(), "SELECT 1"); err != nil {
			t.Errorf("%s: a later session of the database cannot work: %v", stmt, err)
		}
	}
}
