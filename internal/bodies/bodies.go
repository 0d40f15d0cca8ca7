// Package bodies is the check of the code a migration installs, which PostgreSQL checks only
// when it runs: after the install, every PL/pgSQL function, procedure and trigger function the
// file created or replaced goes through plpgsql_check (each trigger function against the table
// of each trigger that uses it), every view and SQL-language function the file created or
// replaced is planned (EXPLAIN, no ANALYZE; a SQL body is analysed again by PostgreSQL's own
// validator first), and each diagnostic becomes a finding at the token of the file it is about
// (the body's line in the file plus the diagnostic's line in the body, the column within its
// statement). The pg_cron jobs the file schedules ran in the install (internal/sqlscript's
// RunJobs); those that failed are findings here too.
//
// Who runs what: plpgsql_check and the plans run on a session of the install role, the
// migration's own role, so that nothing the migration defined is evaluated with more privilege
// than the migration has (planning folds immutable functions, checking a body plans its
// queries). Creating the extension needs a superuser: [Check] creates it, on the caller's
// superuser session, in a schema of its own with a random name after the install's snapshot,
// and drops it before it returns, so that it never appears in a footprint, a parity or rerun
// comparison (the gate waits for the phase before the rerun audit's baseline), nor in what the
// migration saw. Where plpgsql_check is not available (a --dsn
// server without it), the phase says so in a note and checks the rest.
package bodies

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// Input is what the phase checks.
type Input struct {
	// File is the migration as parsed; Statements maps its objects to its statements (where a
	// finding on a body built at run time points).
	File       *pgsql.File
	Statements *locate.Index
	// Footprint is what the install created and changed; Fresh the catalog after it.
	Footprint *introspect.Footprint
	Fresh     *introspect.Snapshot
	// Lint is the configuration: lint.severity sets the rules' severities.
	Lint lint.Config
	// Jobs are the pg_cron jobs the install ran after the file (internal/sqlscript's Jobs), and
	// JobsFailed the error of each that failed (RunJobs), reported here ([jobFindings]).
	Jobs       []sqlscript.Job
	JobsFailed []error
}

// Check runs the phase on db, where the file was installed; admin is a superuser session of
// db's (a privileged session: see internal/privileged), used only to create and drop the
// extension and to ask who may execute a function. It returns the phase "bodies NAME".
func Check(ctx context.Context, db *scratch.Database, admin *pgx.Conn, in Input, name string) (report.PhaseResult, error) {
	t0 := time.Now()
	ph := report.PhaseResult{Phase: finding.PhaseBodies, Name: "bodies " + name, File: in.File.Name}
	t := targetsOf(in)
	var found []finding.Finding
	var checked counts
	// Why the check was cut short, if it was; the functions whose SQL built at run time
	// callDynamic's notes account for.
	cut := ""
	var accounted map[pgsql.Name]bool
	if len(t.plpgsql)+len(t.sql)+len(t.views) > 0 {
		// One session of the install role for all of it.
		conn, err := db.Connect(ctx)
		if err != nil {
			return ph, err
		}
		defer conn.Close(context.WithoutCancel(ctx))
		if len(t.plpgsql) > 0 {
			fs, notes, n, err := checkPLpgSQL(ctx, conn, admin, db.InstallRole(), in, t.plpgsql)
			if cut, err = interrupted(ctx, db, conn, err); err != nil {
				return ph, err
			}
			found, ph.Notes, checked.plpgsql = append(found, fs...), append(ph.Notes, notes...), n
			if cut == "" {
				failed := cannotRun(fs)
				var fs []finding.Finding
				var notes []string
				fs, notes, accounted, err = callDynamic(ctx, conn, in, t.plpgsql, failed)
				if cut, err = interrupted(ctx, db, conn, err); err != nil {
					return ph, err
				}
				found, ph.Notes = append(found, fs...), append(ph.Notes, notes...)
			}
		}
		if len(t.sql)+len(t.views) > 0 && cut == "" {
			fs, err := plan(ctx, conn, in, t)
			if cut, err = interrupted(ctx, db, conn, err); err != nil {
				return ph, err
			}
			found = append(found, fs...)
			if cut == "" {
				checked.sql, checked.views = len(t.sql), len(t.views)
			}
		}
		if cut != "" {
			ph.Notes = append(ph.Notes, cut)
		}
	}
	ph.Notes = append(ph.Notes, dynamicNotes(in.File, accounted)...)
	found = append(found, jobFindings(in.Jobs, in.JobsFailed)...)
	ph.Findings = configured(in, found)
	ph.Duration = time.Since(t0)
	checked.jobs = len(in.Jobs)
	switch {
	case cut != "":
		// What was not checked may hide anything: a check user SQL cut short never passes.
		ph.Status = report.StatusFail
		if checked == (counts{}) {
			return ph, nil
		}
	case checked == (counts{}):
		ph.Status = report.StatusSkip
		ph.Notes = append([]string{"not run: the install created or replaced no PL/pgSQL or SQL function, no view, and scheduled no pg_cron job"}, ph.Notes...)
		if len(t.plpgsql) > 0 {
			ph.Notes[0] = fmt.Sprintf("checked nothing: not one of the %s the install created could be checked (see below why), and it created no view or SQL function to plan", nouns.Count(len(t.plpgsql), "PL/pgSQL routine"))
		}
		return ph, nil
	}
	ph.Notes = append([]string{checked.summary()}, ph.Notes...)
	return ph, nil
}

// cannotRun are the functions (by label) with a body-cannot-run finding in fs.
func cannotRun(fs []finding.Finding) map[string]bool {
	out := map[string]bool{}
	for _, f := range fs {
		if f.Rule == RuleBodyCannotRun {
			out[f.Object] = true
		}
	}
	return out
}

// counts are what the phase checked.
type counts struct{ plpgsql, sql, views, jobs int }

// summary is the phase's first note: what it checked.
func (c counts) summary() string {
	var what []string
	if c.plpgsql > 0 {
		what = append(what, nouns.Count(c.plpgsql, "PL/pgSQL routine")+" with plpgsql_check")
	}
	if c.sql > 0 {
		what = append(what, nouns.Count(c.sql, "SQL function")+" analysed and planned")
	}
	if c.views > 0 {
		what = append(what, nouns.Count(c.views, "view")+" planned")
	}
	var parts []string
	if len(what) > 0 {
		parts = append(parts, "checked after the install, as the install role: "+strings.Join(what, ", "))
	}
	if c.jobs > 0 {
		parts = append(parts, nouns.Count(c.jobs, "pg_cron job")+" run once after the install, before the audit")
	}
	return strings.Join(parts, "; ")
}

// interrupted sorts an error of the install role's session conn: a session of user SQL ended it
// ([scratch.Database.SessionEnded]: the migration, as its database's login role, may end that
// database's sessions of the install role), which cuts the check short, fails the phase and is
// said in a note, with the server up; or any other error, returned.
func interrupted(ctx context.Context, db *scratch.Database, conn *pgx.Conn, err error) (string, error) {
	if ended, err := db.SessionEnded(ctx, "checking the installed bodies", conn, err); !ended {
		return "", err
	}
	return "the check was cut short, and fails: its session of the install role was terminated by another session (user SQL calling pg_terminate_backend?); what it had not checked yet is not checked", nil
}

// configured applies lint.severity (a rule turned off reports nothing) and the file's reviewed
// suppressions to the findings, and orders them by position.
func configured(in Input, fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	seen := map[string]bool{}
	for _, f := range fs {
		sev, on := in.Lint.SeverityOf(f.Rule)
		if !on || lint.Suppressed(in.File, f.Rule, f.Pos) {
			continue
		}
		f.Severity = sev
		if k := f.Pos.String() + f.Rule + f.Message; !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pos != out[j].Pos {
			return out[i].Pos.Before(out[j].Pos)
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

// dynamicNotes says, for each function body of the file that runs SQL built at run time
// (EXECUTE of something other than a literal) and that callDynamic's notes do not account for
// (accounted), that plpgsql_check sees only the expression that builds it: what that SQL will be
// is out of reach.
func dynamicNotes(f *pgsql.File, accounted map[pgsql.Name]bool) []string {
	var out []string
	for _, op := range f.Ops {
		if d := op.Dynamic(); d != nil && !d.Literal && op.Context == pgsql.InFunction && !accounted[op.Function] {
			out = append(out, fmt.Sprintf("%s: the SQL that %s builds at run time (EXECUTE) is out of reach: plpgsql_check checks the expression that builds it, not the statement it makes", op.Pos, op.Function))
		}
	}
	return slices.Compact(out)
}

// target is a function of the install to check: its catalog entry, and the file's CREATE
// statement whose body is the installed one (nil when the body was built at run time).
type target struct {
	fn     introspect.Function
	create *pgsql.Op
}

// label names the function in messages: "function public.f(integer)".
func (t target) label() string {
	kind := "function"
	if t.fn.Kind == "procedure" {
		kind = "procedure"
	}
	return kind + " " + t.fn.Identity()
}

// targets are what the phase checks: PL/pgSQL and SQL routines, and views.
type targets struct {
	plpgsql, sql []target
	views        []introspect.View
}

// targetsOf returns the routines and views the install created, or changed in more than their
// owner, privileges and comment (CREATE OR REPLACE, ALTER FUNCTION ... SET), each function with
// the file's statement that created its installed body.
func targetsOf(in Input) targets {
	var t targets
	if in.Footprint == nil || in.Fresh == nil {
		return t
	}
	touched := map[introspect.ObjectRef]bool{}
	for _, o := range in.Footprint.Created {
		touched[o.ObjectRef] = true
	}
	for _, c := range in.Footprint.Changed {
		if c.Attr != "owner" && c.Attr != "comment" && !strings.HasPrefix(c.Attr, "acl") {
			touched[c.Ref()] = true
		}
	}
	for _, fn := range in.Fresh.Functions {
		if !touched[introspect.ObjectRef{Kind: introspect.KindFunction, Object: fn.Identity()}] || fn.Kind != "function" && fn.Kind != "procedure" {
			continue
		}
		x := target{fn: fn, create: creator(in.File, fn)}
		switch fn.Language {
		case "plpgsql":
			t.plpgsql = append(t.plpgsql, x)
		case "sql":
			t.sql = append(t.sql, x)
		}
	}
	for _, v := range in.Fresh.Views {
		if v.Kind == "view" && touched[introspect.ObjectRef{Kind: introspect.KindView, Object: qualify(v.Schema, v.Name)}] {
			t.views = append(t.views, v)
		}
	}
	return t
}

// creator returns the last CREATE FUNCTION (or PROCEDURE) of f that gives fn its installed body:
// same schema, name and body text. None when the body was built at run time.
func creator(f *pgsql.File, fn introspect.Function) *pgsql.Op {
	var found *pgsql.Op
	for i := range f.Ops {
		op := &f.Ops[i]
		x := op.Func()
		if op.Verb != pgsql.VerbCreate || x == nil || len(op.Objects) == 0 {
			continue
		}
		if n := op.Objects[0].Name; n.Schema == fn.Schema && n.Name == fn.Name && x.Body == fn.Body {
			found = op
		}
	}
	return found
}

// qualify is schema.name as introspect writes a relation's identity.
func qualify(schema, name string) string {
	return pgsql.Name{Schema: schema, Name: name}.String()
}
