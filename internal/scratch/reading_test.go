package scratch_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// hidden is a statement that ledgercheck's parser reads as one SELECT of two strings and a server
// with standard_conforming_strings off as a SELECT, then a DELETE of every agent memory (the
// backslash escapes the quote that ends the first string for the parser).
const hidden = `SELECT 'x\', '; DELETE FROM public.agent_memories; --';`

// The same for a server that reads the file's bytes as SJIS or GBK: "ā" is C4 81 and "丁" E4 B8
// 81 in UTF-8, and 81 5C is one character in both, which takes the backslash that escapes the
// quote for the parser, so the server ends the string there.
const (
	hiddenSJIS = `SELECT E'ā\'; DELETE FROM public.agent_memories; --';`
	hiddenGBK  = `SELECT E'丁\'; DELETE FROM public.agent_memories; --';`
)

// readingAttacks change, in every form the server honours, a setting under which the server
// reads what follows otherwise than the parser, with a DELETE hidden behind it; line is the
// statement the install must stop at (0: the script runs to its end, the DELETE still a string).
var readingAttacks = []struct {
	name  string
	files []string
	line  int
}{
	{"SET", []string{"SET standard_conforming_strings = off;\n" + hidden}, 1},
	{"SET LOCAL in a transaction", []string{"BEGIN;\nSET LOCAL standard_conforming_strings = off;\n" + hidden + "\nCOMMIT;"}, 2},
	{"set_config", []string{"SELECT set_config('standard_conforming_strings', 'off', false);\n" + hidden}, 1},
	{"set_config with a computed name in a DO block", []string{"DO $$ BEGIN PERFORM set_config('standard_' || 'conforming_strings', 'off', false); END $$;\n" + hidden}, 1},
	{"EXECUTE of a SET built at run time", []string{"DO $$ BEGIN EXECUTE 'SET standard_conforming_' || 'strings = ' || 'off'; END $$;\n" + hidden}, 1},
	{"a trigger that sets it", []string{`CREATE TABLE public.reading_probe (id int);
CREATE FUNCTION public.reading_probe_set() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM set_config('standard_conforming_strings', 'off', false); RETURN NEW; END $$;
CREATE TRIGGER reading_probe_set BEFORE INSERT ON public.reading_probe FOR EACH ROW EXECUTE FUNCTION public.reading_probe_set();
INSERT INTO public.reading_probe VALUES (1);
` + hidden}, 5},
	{"client_encoding SJIS", []string{"SET client_encoding = 'SJIS';\n" + hiddenSJIS}, 1},
	{"SET NAMES GBK", []string{"SET NAMES 'GBK';\n" + hiddenGBK}, 1},
	{"set_config client_encoding BIG5", []string{"SELECT set_config('client_encoding', 'BIG5', false);\n" + hidden}, 1},
	{"ALTER DATABASE SET for the next session", []string{
		"DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET standard_conforming_strings = off', current_database());\n" +
			"EXECUTE format('ALTER DATABASE %I SET client_encoding = %L', current_database(), 'SJIS'); END $$;",
		hidden + "\n" + hiddenSJIS}, 0},
}

// heldAttacks are the readingAttacks whose every file but the last the warden stops: the setting
// never lands (warden.go).
var heldAttacks = map[string]bool{"ALTER DATABASE SET for the next session": true}

// What ledgercheck's parser read is what the server runs: a migration that changes how the server
// reads the statements after it, in any form, is stopped at the statement that did it with a
// finding, before the server reads the next one, and the DELETE hidden behind it never runs (the
// agent memories are all there). Embedded and on a --dsn server.
func TestWhatLintReadIsWhatTheServerRuns(t *testing.T) {
	scratchtest.NeedPostgres(t)
	for _, mode := range []string{"embedded", "dsn"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv := readingServer(t, mode)
			for _, a := range readingAttacks {
				t.Run(a.name, func(t *testing.T) {
					db := readingDatabase(t, srv)
					var err error
					for i, f := range a.files {
						err = sqlscript.ExecFile(context.Background(), db, "m.sql", []byte(f))
						switch last := i == len(a.files)-1; {
						case !last && heldAttacks[a.name] && (err == nil || !strings.Contains(err.Error(), "which every later session would apply")):
							t.Fatalf("file %d: %v; want the warden to stop the setting", i+1, err)
						case !last && !heldAttacks[a.name] && err != nil:
							t.Fatalf("file %d: %v", i+1, err)
						}
					}
					if n := memories(t, db); n != 3 {
						t.Errorf("%d agent memories left of 3: the hidden DELETE ran", n)
					}
					if a.line == 0 {
						if err != nil {
							t.Errorf("the script read as the parser reads it failed: %v", err)
						}
						return
					}
					var se *scratch.ScriptError
					f, ok := install.Finding(err)
					if !errors.As(err, &se) || se.SelfInflicted() == nil || !ok || f.Pos.Line != a.line || f.Severity != finding.SevError {
						t.Fatalf("err %v; want an install-failed finding at m.sql:%d", err, a.line)
					}
					if !strings.Contains(f.Message, "otherwise than ledgercheck's parser") {
						t.Errorf("finding %q does not say why", f.Message)
					}
				})
			}
		})
	}
}

// Each statement goes to the server in a message of its own, which the server accepts only as one
// statement: a statement whose text the server reads as two (here given as one, as the parser
// would after a reading that differs) runs not even in part.
func TestOneStatementPerMessage(t *testing.T) {
	scratchtest.NeedPostgres(t)
	for _, mode := range []string{"embedded", "dsn"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			db := readingDatabase(t, readingServer(t, mode))
			conn := scratchtest.Connect(t, db)
			text := "SELECT 1; DELETE FROM public.agent_memories"
			err := scratch.ExecScript(context.Background(), conn, &scratch.Script{Name: "m.sql",
				Statements: []scratch.Statement{{Text: text, Pos: finding.Position{File: "m.sql", Line: 1, Col: 1}}}})
			var se *scratch.ScriptError
			if !errors.As(err, &se) || se.SelfInflicted() == nil || !strings.Contains(se.Error(), "more than one statement") {
				t.Errorf("err %v; want the statement refused as two", err)
			}
			if n := memories(t, db); n != 3 {
				t.Errorf("%d agent memories left of 3: the second statement ran", n)
			}
		})
	}
}

// readingServer is the package's embedded server, or a run on the shared --dsn server.
func readingServer(t *testing.T, mode string) *scratch.Server {
	t.Helper()
	if mode == "embedded" {
		return scratchtest.Server(t)
	}
	ctx := context.Background()
	srv, err := scratch.Start(ctx, scratch.Options{DSN: scratchtest.SharedDSNServer(t).DSN})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// readingDatabase is a database with the prerequisites and three agent memories.
func readingDatabase(t *testing.T, srv *scratch.Server) *scratch.Database {
	t.Helper()
	ctx := context.Background()
	db, err := srv.NewDatabase(ctx, 1536)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Drop(context.Background()) })
	conn := scratchtest.Connect(t, db)
	if _, err := conn.Exec(ctx, `INSERT INTO public.agent_memories (workspace_id, memory_type, summary, content)
SELECT 'ws-1', 'decision', 'memory ' || i, 'kept' FROM generate_series(1, 3) i`); err != nil {
		t.Fatal(err)
	}
	return db
}

// memories counts db's agent memories, read as the superuser.
func memories(t *testing.T, db *scratch.Database) int {
	t.Helper()
	ctx := context.Background()
	conn := scratchtest.ConnectAdmin(t, db)
	var n int
	if err := conn.QueryRow(ctx, "SELECT pg_catalog.count(*) FROM public.agent_memories").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
