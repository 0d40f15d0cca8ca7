package pgsql_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// TestJobsAreReadAtTheirLiteral: a pg_cron job's command given as a literal (dollar-quoted, or
// quoted with doubled quotes) is read as SQL, its statements ops in the context InJob at their
// place inside the literal, and CommandOffset maps each byte of the command back to the file;
// schedule's two and three arguments, schedule_in_database, a named command argument of
// alter_job and a call inside a DO block are jobs; alter_job without a command, a command NULL
// and a function of another schema are not; a command built by format() is a job that cannot
// be read.
func TestJobsAreReadAtTheirLiteral(t *testing.T) {
	src := `CREATE TABLE public.lc_notes (id int);
SELECT cron.schedule('open-notes', '* * * * *', $job$
  ALTER TABLE public.lc_notes DISABLE ROW LEVEL SECURITY;
  GRANT ALL ON public.lc_notes TO anon;
$job$);
select cron.schedule('0 7 * * *', 'select public.f(''x''), public.g()');
SELECT cron.schedule_in_database('j', '@daily', format('select %s', 1), 'postgres');
DO $$ BEGIN PERFORM cron.schedule('k', '@daily', 'DELETE FROM public.lc_notes'); END $$;
SELECT cron.alter_job(1, command => 'VACUUM public.lc_notes');
SELECT cron.alter_job(1, schedule => '@daily');
SELECT cron.alter_job(1, '@daily', NULL);
SELECT other.schedule('a', 'b', 'DROP TABLE public.lc_notes');
`
	f, err := pgsql.Parse("x.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range f.Jobs {
		at := ""
		if j.Literal {
			off := j.CommandOffset(strings.Index(j.Command, "public."))
			at = " public. at " + f.Pos(off).String()
		}
		got = append(got, fmt.Sprintf("%s %s %s literal=%v%s", j.Func, j.Pos, j.Context, j.Literal, at))
	}
	want := []string{
		"cron.schedule x.sql:2:8 at top level literal=true public. at x.sql:3:15",
		"cron.schedule x.sql:6:8 at top level literal=true public. at x.sql:6:43",
		"cron.schedule_in_database x.sql:7:8 at top level literal=false",
		"cron.schedule x.sql:8:21 in a DO block literal=true public. at x.sql:8:63",
		"cron.alter_job x.sql:9:8 at top level literal=true public. at x.sql:9:45",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("jobs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = nil
	for _, op := range f.Ops {
		if op.Context == pgsql.InJob {
			line := fmt.Sprintf("%s %s", op.Pos, op.Tag)
			if len(op.Objects) > 0 {
				line += " " + op.Object().String()
			}
			got = append(got, line)
		}
	}
	want = []string{
		"x.sql:3:3 ALTER TABLE table public.lc_notes",
		"x.sql:4:3 GRANT table public.lc_notes",
		"x.sql:6:36 SELECT",
		"x.sql:8:51 DELETE table public.lc_notes",
		"x.sql:9:38 VACUUM",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ops of the jobs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFunctionBodyOffset: BodyOffset maps a byte of a function's body to the file, for a
// dollar-quoted body and for a quoted one whose doubled quotes shift every byte after them.
func TestFunctionBodyOffset(t *testing.T) {
	src := "CREATE FUNCTION public.a() RETURNS text LANGUAGE plpgsql AS $$\nBEGIN\n  RETURN n.bdy;\nEND $$;\n" +
		"CREATE FUNCTION public.b() RETURNS text LANGUAGE plpgsql AS 'BEGIN RETURN ''x'' || n.bdy; END';\n"
	f, err := pgsql.Parse("x.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range f.Ops {
		if fn := op.Func(); fn != nil && op.Context == pgsql.TopLevel {
			got = append(got, f.Pos(fn.BodyOffset(strings.Index(fn.Body, "n.bdy"))).String())
		}
	}
	if want := "x.sql:3:10 x.sql:5:84"; strings.Join(got, " ") != want {
		t.Errorf("n.bdy at %v, want %s", got, want)
	}
}
