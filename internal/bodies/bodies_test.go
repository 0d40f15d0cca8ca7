package bodies_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/bodies"
	"github.com/ledgercheck/ledgercheck/internal/golden"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// checked installs src (the file name) in db as the gate does (the file, then the commands of
// the pg_cron jobs it schedules, between the two snapshots) and runs the phase on it.
func checked(t *testing.T, db *scratch.Database, name string, src []byte, cfg lint.Config) report.PhaseResult {
	t.Helper()
	ctx := context.Background()
	f, err := sqlscript.Parse(name, src, db.Dim)
	if err != nil {
		t.Fatal(err)
	}
	admin := scratchtest.ConnectAdmin(t, db)
	jobs := sqlscript.Jobs(f)
	var failed []error
	fp, fresh, err := install.FootprintThen(ctx, db, admin, sqlscript.Script(f), nil, introspect.Options{}, func(ctx context.Context) error {
		failed, err = sqlscript.RunJobs(ctx, db, jobs)
		return err
	})
	if err != nil {
		t.Fatalf("installing %s: %v", name, err)
	}
	in := bodies.Input{File: f, Statements: locate.New(f), Footprint: fp, Fresh: fresh, Lint: cfg, Jobs: jobs, JobsFailed: failed}
	ph, err := bodies.Check(ctx, db, admin, in, "case")
	if err != nil {
		t.Fatal(err)
	}
	return ph
}

// rendered is the phase as a golden file holds it: its findings (one line each, with their
// detail indented) and its notes.
func rendered(ph report.PhaseResult) []byte {
	var b bytes.Buffer
	for _, f := range ph.Findings {
		fmt.Fprintln(&b, f.String())
		for _, l := range strings.Split(f.Detail, "\n") {
			if l != "" {
				fmt.Fprintln(&b, "    "+l)
			}
		}
	}
	for _, n := range ph.Notes {
		fmt.Fprintln(&b, "note: "+n)
	}
	if ph.Status != "" {
		fmt.Fprintln(&b, "status: "+string(ph.Status))
	}
	return b.Bytes()
}

// TestGoldenCases: each case of testdata/bodies (input.sql, a sidecar in the style of Open
// Brain's, each about one rule) installed and checked; want.txt is the phase's findings, each at
// its token, and notes. Without the phase, nothing reports these: every case installs.
func TestGoldenCases(t *testing.T) {
	inputs, err := filepath.Glob("../../testdata/bodies/*/input.sql")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, in := range inputs {
		dir := filepath.Dir(in)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			ph := checked(t, scratchtest.NewDatabase(t, 1536), "input.sql", src, lint.Config{})
			golden.Check(t, filepath.Join(dir, "want.txt"), rendered(ph))
		})
	}
}

// TestShippedFilesPass: the decision ledger and its port, over the Open Brain prerequisites,
// have every body, view and SQL function checked, and none has a finding (plpgsql_check found
// nothing in their PL/pgSQL, every view and SQL function plans).
func TestShippedFilesPass(t *testing.T) {
	for _, c := range []struct {
		file string
		dim  int
	}{{"../../migrations/decision_ledger.sql", 1536}, {"../../migrations/ports/decision_ledger_1024.sql", 1024}} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			ph := checked(t, scratchtest.NewDatabase(t, c.dim), c.file, src, lint.Config{})
			if len(ph.Findings) > 0 || ph.Status != "" || len(ph.Notes) == 0 || ph.Notes[0] != "checked after the install, as the install role: 5 PL/pgSQL routines with plpgsql_check, 1 view planned" {
				t.Errorf("%s: status %q, want its 5 PL/pgSQL routines and its view checked and no finding:\n%s", c.file, ph.Status, rendered(ph))
			}
		})
	}
}

// TestChecksRunAsTheInstallRole: what checking evaluates of the migration runs as the install
// role, never as the superuser that created the extension. A function planted by the file
// raises with the role that evaluates it when the planner folds it (IMMUTABLE, constant
// arguments): plpgsql_check planning a body that calls it, and EXPLAIN planning a view that
// selects it, both report the install role. Afterwards the database holds no plpgsql_check and
// no schema of it.
func TestChecksRunAsTheInstallRole(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1536)
	src := `CREATE FUNCTION public.lc_probe(p integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RAISE EXCEPTION 'evaluated as %', current_user; END $$;
CREATE FUNCTION public.lc_uses_probe() RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT public.lc_probe(1));
END $$;
CREATE VIEW public.lc_probe_view AS SELECT public.lc_probe(2) AS v;
`
	ph := checked(t, db, "probe.sql", []byte(src), lint.Config{})
	want := "evaluated as " + db.InstallRole()
	var evaluated int
	for _, f := range ph.Findings {
		if strings.Contains(f.Message, "evaluated as") {
			evaluated++
			if !strings.Contains(f.Message, want) {
				t.Errorf("%s: not evaluated as the install role %s", f, db.InstallRole())
			}
		}
	}
	if evaluated != 2 {
		t.Errorf("want the body and the view to evaluate the probe once each, as %s:\n%s", db.InstallRole(), rendered(ph))
	}
	conn := scratchtest.Connect(t, db)
	var left int
	if err := conn.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM pg_extension WHERE extname = 'plpgsql_check')
	  + (SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'ledgercheck_plpgsql_check%')`).Scan(&left); err != nil || left != 0 {
		t.Errorf("after the check the database holds %d of plpgsql_check's extension and schema (%v), want none", left, err)
	}
}

// TestSeverityAndSuppressions: lint.severity sets a body rule's severity (or turns it off), and
// a reviewed suppression before the CREATE FUNCTION statement accepts a finding inside its body,
// as for every rule; lint does not call that suppression unknown or unused.
func TestSeverityAndSuppressions(t *testing.T) {
	src := `CREATE FUNCTION public.lc_a(p integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE v_unused integer;
BEGIN
  RETURN p;
END $$;
-- ledgercheck:ignore body-cannot-run the table arrives with the next migration of this sidecar
CREATE FUNCTION public.lc_b() RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM public.lc_later);
END $$;
CREATE FUNCTION public.lc_c() RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  RETURN 1;
  RETURN 2;
END $$;
`
	db := scratchtest.NewDatabase(t, 1536)
	cfg := lint.Config{Severity: map[string]string{bodies.RuleBodyUnusedVariable: "error", bodies.RuleBodyDeadCode: "off"}}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("lint.severity of the bodies' rules: %v", err)
	}
	ph := checked(t, db, "s.sql", []byte(src), cfg)
	got := string(rendered(ph))
	want := "s.sql:3:9: error: function public.lc_a(integer): unused variable \"v_unused\" [body-unused-variable]\n"
	if !strings.HasPrefix(got, want) || strings.Count(got, "[body-") != 1 {
		t.Errorf("findings:\n%s\nwant only:\n%s", got, want)
	}
	f, err := sqlscript.Parse("s.sql", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range lint.Run(f, lint.Config{}, lint.Options{}) {
		if strings.Contains(fd.Rule, "suppression") {
			t.Errorf("lint: %s", fd)
		}
	}
}

// TestSessionTerminatedByTheMigration: the migration may end its own database's sessions of the
// install role, as that database's login role (scratch/login.go; here a function the planner
// folds switches to it and ends its own caller's). The check says in a note that it was cut short, keeps what it found before,
// and is not an error of the run (an error would be exit 3, the environment's); it fails, found
// or not: what it did not check may hide anything, and a cut short check that passed would let
// a port end the other variant's and leave its bodies unchecked.
func TestSessionTerminatedByTheMigration(t *testing.T) {
	src := `CREATE FUNCTION public.lc_count() RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM public.lc_missing);
END $$;
CREATE FUNCTION public.lc_bye(p integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  PERFORM set_config('role', 'none', true);
  PERFORM pg_terminate_backend(pg_backend_pid());
  RETURN p;
END $$;
CREATE VIEW public.lc_bye_view AS SELECT public.lc_bye(1) AS v;
`
	ph := checked(t, scratchtest.NewDatabase(t, 1536), "bye.sql", []byte(src), lint.Config{})
	got := string(rendered(ph))
	if !strings.Contains(got, "bye.sql:4:32: error: function public.lc_count(): relation \"public.lc_missing\" does not exist [body-cannot-run]") ||
		!strings.Contains(got, "note: the check was cut short, and fails: its session of the install role was terminated by another session") {
		t.Errorf("want lc_count's finding and a note that the check was cut short:\n%s", got)
	}
	// Without the finding before it, the check cut short still fails.
	bye := src[strings.Index(src, "CREATE FUNCTION public.lc_bye"):]
	if ph := checked(t, scratchtest.NewDatabase(t, 1536), "bye.sql", []byte(bye), lint.Config{}); ph.Status != report.StatusFail || len(ph.Findings) != 0 {
		t.Errorf("a check cut short with no finding is %s (%d findings), want fail", ph.Status, len(ph.Findings))
	}
}

// TestCallsOfBuiltSQLAreBounded: a file of 45 functions that build their SQL at run time, each
// misspelling a column, has the first 40 (in the catalog's order) called and found, and a note
// for the other 5: the phase calls at most 40 functions, so a file of many cannot hold it.
func TestCallsOfBuiltSQLAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS public.lc_tags (id bigint PRIMARY KEY, tag text NOT NULL);\n")
	for i := range 45 {
		fmt.Fprintf(&b, `CREATE OR REPLACE FUNCTION public.lc_tag_count_%02d(p_tag text) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = '' AS $$
DECLARE
  v bigint;
  q text := 'SELECT count(*) FROM public.lc_tags t';
BEGIN
  q := q || ' WHERE t.tagg = $1';
  EXECUTE q INTO v USING p_tag;
  RETURN v;
END;
$$;
`, i)
	}
	ph := checked(t, scratchtest.NewDatabase(t, 1536), "tags.sql", []byte(b.String()), lint.Config{})
	n := 0
	for _, f := range ph.Findings {
		if f.Rule == bodies.RuleBodyCannotRun && strings.Contains(f.Message, "column t.tagg does not exist") {
			n++
		}
	}
	notes := strings.Join(ph.Notes, "\n")
	if n != 40 || !strings.Contains(notes, "by 40 functions: each called twice") || !strings.Contains(notes, "by 5 more functions was not observed: the phase calls at most 40") {
		t.Errorf("%d findings of the misspelt column, want 40 (and a note for the other 5):\n%s", n, rendered(ph))
	}
}
