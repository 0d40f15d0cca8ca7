package sqlscript

import (
	"context"
	"errors"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// Job is a pg_cron job the file schedules as it installs, as scratch runs its command.
type Job struct {
	// Job is the file's call that schedules it.
	Job pgsql.Job
	// Script is its command, one statement run on a session of its own (the command may hold
	// several statements: pg_cron sends it as one query, which runs them in one transaction).
	Script *scratch.Script
}

// Jobs returns the pg_cron jobs f schedules when it is installed, to run as the jobs would run
// once the migration is deployed: each call at top level or in a DO block whose command is a
// literal (a call in a function body schedules nothing until the function is called; a command
// built at run time cannot be read, which lint's cron-command-not-static reports), the last one
// of each job name (scheduling a name again replaces its command), in file order.
func Jobs(f *pgsql.File) []Job {
	var out []Job
	last := map[string]int{}
	for i, j := range f.Jobs {
		if j.Literal && (j.Context == pgsql.TopLevel || j.Context == pgsql.InDo) && j.Name != "" {
			last[j.Name] = i
		}
	}
	for i, j := range f.Jobs {
		if !j.Literal || j.Context != pgsql.TopLevel && j.Context != pgsql.InDo || j.Name != "" && last[j.Name] != i {
			continue
		}
		if strings.TrimSpace(j.Command) == "" {
			continue
		}
		out = append(out, Job{Job: j, Script: jobScript(f, j)})
	}
	return out
}

// jobScript is the script of j's command: each statement of it in a message of its own, as the
// install sends every statement (scratch sends one statement per message), inside one
// transaction when there are several, as pg_cron's one query of them runs them. A command that
// does not parse is sent as it is, for the server to reject at its place.
func jobScript(f *pgsql.File, j pgsql.Job) *scratch.Script {
	start := j.CommandOffset(0)
	sc := &scratch.Script{Name: f.Name}
	sc.Position = func(off int) finding.Position { return f.Pos(j.CommandOffset(off - start)) }
	stmt := func(text string, rel int) scratch.Statement {
		return scratch.Statement{Index: j.Stmt, Text: text, Start: start + rel, Pos: f.Pos(j.CommandOffset(rel))}
	}
	cmd, err := pgsql.Parse(f.Name, []byte(j.Command))
	if err != nil || len(cmd.Stmts) == 0 {
		lead := len(j.Command) - len(strings.TrimLeft(j.Command, " \t\r\n\f\v"))
		sc.Statements = []scratch.Statement{stmt(j.Command, 0)}
		sc.Statements[0].Pos = f.Pos(j.CommandOffset(lead))
		return sc
	}
	for _, st := range cmd.Stmts {
		sc.Statements = append(sc.Statements, stmt(st.Text, st.Start))
	}
	if len(sc.Statements) > 1 {
		first := cmd.Stmts[0].Start
		sc.Statements = append(append([]scratch.Statement{stmt("BEGIN", first)}, sc.Statements...), stmt("COMMIT", first))
	}
	return sc
}

// RunJobs runs the command of each job once in db as the install role, the role that scheduled
// it and that pg_cron runs it as, each on a session of its own (as pg_cron opens one per run),
// with the install's protections ([scratch.Database.Exec]). failed holds, for each job, the
// error of a command the server rejected (nil when it ran): the job fails in production too, but
// the migration is installed all the same, and what the command did is rolled back. err is any
// other error (no server, an interrupted run).
func RunJobs(ctx context.Context, db *scratch.Database, jobs []Job) (failed []error, err error) {
	failed = make([]error, len(jobs))
	for i, j := range jobs {
		e := db.Exec(ctx, j.Script)
		var se *scratch.ScriptError
		switch {
		case e == nil:
		case errors.As(e, &se) && ctx.Err() == nil:
			failed[i] = e
		default:
			return nil, e
		}
	}
	return failed, nil
}
