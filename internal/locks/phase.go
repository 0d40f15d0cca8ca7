package locks

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// DefaultSlow is how long a later statement of a transaction must run, at fixture scale, for a
// lock held across it to be reported (lock-held-across-slow-statements; locks.slow_statement):
// long enough that no statement of a migration's DDL gets there on a busy CI runner, short
// enough that a backfill over a fixture of a few thousand rows does.
const DefaultSlow = time.Second

// Run is one traced run of the file: the install, a rerun, the upgrade.
type Run struct {
	// Name names it in the report: "install", "run 2", "upgrade from FILE".
	Name string
	// Trace is its trace; nil when it did not run.
	Trace *Trace
}

// Acceptance is a reviewed lock: the file may take Mode (and any mode it covers) on Table, with
// the statements Statements names, for Reason (locks.accept in ledgercheck.yaml). It accepts the
// lock's findings: what it blocks, no lock_timeout before it, held across slow statements.
type Acceptance struct {
	// Table is the table, schema-qualified: "public.agent_memories".
	Table string `yaml:"table"`
	// Mode is the strongest mode accepted, as SQL writes it: "SHARE ROW EXCLUSIVE".
	Mode string `yaml:"mode"`
	// Statements, when not empty, are the only statements (command tags: "CREATE TRIGGER",
	// "DROP TRIGGER") whose locks it accepts.
	Statements []string `yaml:"statements"`
	// Rewrite accepts a rewrite of the table too (with Mode ACCESS EXCLUSIVE).
	Rewrite bool `yaml:"rewrite"`
	// Reason says why a reviewer accepted it; required.
	Reason string `yaml:"reason"`
	// Where is the entry's place in the configuration ("ledgercheck.yaml:80"), for the report.
	Where string `yaml:"-"`
}

// Check validates a: a table name with its schema, a known mode and a reason.
func (a Acceptance) Check() error {
	schema, name, ok := strings.Cut(a.Table, ".")
	switch {
	case !ok || schema == "" || name == "":
		return fmt.Errorf("locks.accept: table %q: want the table with its schema, e.g. public.agent_memories", a.Table)
	case ParseMode(a.Mode) == 0:
		return fmt.Errorf("locks.accept entry for %s: mode %q: want a lock mode as SQL writes it (SHARE, SHARE ROW EXCLUSIVE, EXCLUSIVE, ACCESS EXCLUSIVE, ...)", a.Table, a.Mode)
	case a.Rewrite && ParseMode(a.Mode) != AccessExclusive:
		return fmt.Errorf("locks.accept entry for %s: rewrite: true needs mode ACCESS EXCLUSIVE (a rewrite takes it)", a.Table)
	case strings.TrimSpace(a.Reason) == "":
		return fmt.Errorf("locks.accept entry for %s: no reason; a reviewer needs one", a.Table)
	}
	for _, st := range a.Statements {
		if strings.TrimSpace(st) == "" || strings.ToUpper(st) != st {
			return fmt.Errorf("locks.accept entry for %s: statement %q: want a command tag in capitals (CREATE TRIGGER, DROP TRIGGER, ...)", a.Table, st)
		}
	}
	return nil
}

// Input is what the locks phase of one variant reads.
type Input struct {
	// Name names the variant ("artifact", a port's name); File is its migration and Parsed its
	// parse; Script the statements the runs ran.
	Name   string
	File   string
	Parsed *pgsql.File
	Script *scratch.Script
	// Runs are the traced runs, the install first.
	Runs []Run
	// Sizes are the tables' sizes in the scratch database (see [Measure]); Fixture says
	// whether a fixture was loaded there.
	Sizes   map[uint32]Size
	Fixture bool
	// Stats, when not nil, are production's sizes (--table-stats).
	Stats *Stats
	// Accept are the reviewed locks.
	Accept []Acceptance
	// Slow is [DefaultSlow] when 0.
	Slow time.Duration

	plan plan // what the file says of production's transactions and lock_timeout (Phase's)
}

// Phase is the variant's locks phase, "locks VARIANT": the findings, the lock table and notes.
func Phase(in Input) report.PhaseResult {
	if in.Slow == 0 {
		in.Slow = DefaultSlow
	}
	ph := report.PhaseResult{Phase: finding.PhaseLocks, Name: "locks " + in.Name, File: in.File}
	in.plan = planOf(in.Parsed, in.Script)
	var evs []*event
	var traced []string
	statements := 0
	for i, r := range in.Runs {
		if r.Trace == nil {
			continue
		}
		traced = append(traced, r.Name)
		if err := r.Trace.Err(); err != nil {
			ph.Notes = append(ph.Notes, fmt.Sprintf("the trace (%s) is incomplete: %v", r.Name, err))
		}
		statements += r.Trace.Read()
		evs = append(evs, eventsOf(i, r.Trace, in.Script, in.plan, in.Slow)...)
	}
	ph.Notes = append([]string{summary(in, traced)}, ph.Notes...)
	if statements == 0 { // no statement's locks were read: nothing was checked
		ph.Status = report.StatusSkip
	}
	accepted := make([][]string, len(in.Accept)) // per acceptance, the locks it accepted
	shown := map[string]bool{}
	reported := map[string]bool{}
	for _, e := range evs {
		acc := accepting(in.Accept, e)
		row := in.row(e)
		if acc >= 0 {
			row.Accepted = in.Accept[acc].Where
		}
		if k := fmt.Sprint(e.step.Stmt, e.rel.OID, e.mode, e.rewrite); !shown[k] {
			shown[k] = true
			ph.Locks = append(ph.Locks, row)
		}
		fs := in.findings(e)
		if acc >= 0 && len(fs) > 0 {
			if k := fmt.Sprint(acc, e.step.Stmt, e.rel.OID, e.mode, e.rewrite); !shown[k] {
				shown[k] = true
				accepted[acc] = append(accepted[acc], fmt.Sprintf("%s at %s%s", lockText(e), e.stmt.Pos, in.runText(e)))
			}
			continue
		}
		for _, f := range fs {
			k := f.Rule + "\x00" + fmt.Sprint(e.step.Stmt, e.rel.OID)
			switch {
			case reported[k]:
			case in.Parsed != nil && lint.Suppressed(in.Parsed, f.Rule, f.Pos):
				ph.Notes = append(ph.Notes, fmt.Sprintf("a ledgercheck:ignore %s before the statement at %s accepts %s%s", f.Rule, f.Pos, lockText(e), in.runText(e)))
			default:
				ph.Findings = append(ph.Findings, f)
			}
			reported[k] = true
		}
	}
	for _, f := range in.endedInside() {
		if in.Parsed != nil && lint.Suppressed(in.Parsed, f.Rule, f.Pos) {
			ph.Notes = append(ph.Notes, fmt.Sprintf("a ledgercheck:ignore %s before the statement at %s accepts that it ends its own transaction", f.Rule, f.Pos))
			continue
		}
		ph.Findings = append(ph.Findings, f)
	}
	for i, a := range in.Accept {
		if len(accepted[i]) == 0 {
			ph.Notes = append(ph.Notes, fmt.Sprintf("%s accepts %s on %s, which no traced run took: remove the entry once that holds for every run (install, reruns, upgrade)", a.Where, ParseMode(a.Mode), a.Table))
			continue
		}
		ph.Notes = append(ph.Notes, fmt.Sprintf("%s accepts %s: %s", a.Where, strings.Join(accepted[i], "; "), strings.Join(strings.Fields(a.Reason), " ")))
	}
	ph.Counts = counts(ph.Locks, len(traced))
	return ph
}

// summary is the phase's first note: what was traced and what grades it.
func summary(in Input, traced []string) string {
	grade := "graded by the sizes of the scratch database (no fixture, no --table-stats: every table is nearly empty)"
	switch {
	case in.Stats != nil:
		grade = fmt.Sprintf("graded by production's sizes from %s (%s)", in.Stats.File, nouns.Count(in.Stats.Len(), "table"))
	case in.Fixture:
		grade = "graded by the fixture's sizes (give --table-stats for production's)"
	}
	return fmt.Sprintf("the locks each statement took on tables that existed before the file, read from pg_locks after it (%s), %s",
		strings.Join(traced, ", "), grade)
}

// counts are the phase's counts: the rows of the lock table, those that block writes, the
// rewrites and the traced runs.
func counts(rows []report.Lock, runs int) map[string]int {
	c := map[string]int{"locks": len(rows), "runs": runs}
	for _, l := range rows {
		if m := ParseMode(l.Mode); m.BlocksWrites() {
			c["write_blocking"]++
		}
		if l.Rewrite {
			c["rewrites"]++
		}
	}
	return c
}

// accepting returns the index of the acceptance that covers e, or -1.
func accepting(acc []Acceptance, e *event) int {
	for i, a := range acc {
		m := ParseMode(a.Mode)
		switch {
		case a.Table != e.rel.Schema+"."+e.rel.Name, e.mode != 0 && !m.Covers(e.mode), e.rewrite && !a.Rewrite:
		case len(a.Statements) > 0 && !slices.Contains(a.Statements, command(e.step.Tag)):
		default:
			return i
		}
	}
	return -1
}

// size is the relation's size for grading: production's when the statistics have it, else the
// scratch database's; source says whose.
func (in Input) size(r Relation) (sz Size, source string, ok bool) {
	if s, ok := in.Stats.Lookup(r.Schema, r.Name); ok {
		return s, "production", true
	}
	s, ok := in.Sizes[r.OID]
	if in.Fixture {
		return s, "fixture", ok
	}
	return s, "scratch", ok
}

// row is e's row of the lock table.
func (in Input) row(e *event) report.Lock {
	l := report.Lock{Run: in.Runs[e.run].Name, Pos: e.stmt.Pos, Statement: command(e.step.Tag), Relation: e.rel.Qualified(),
		Rewrite: e.rewrite, Duration: e.step.Took, Held: e.held}
	if e.mode != 0 {
		l.Mode, l.Blocks = e.mode.String(), e.mode.Blocks()
	} else {
		l.Blocks = AccessExclusive.Blocks()
	}
	if sz, src, ok := in.size(e.rel); ok {
		l.Rows, l.Bytes, l.Source, l.Grade = sz.Rows, sz.Bytes, src, Grade(sz.Rows)
	}
	return l
}

// sizeText is the size a message gives: "2.1 M rows, 3.4 GB in production (large)", "12 rows
// in the fixture".
func (in Input) sizeText(r Relation) string {
	sz, src, ok := in.size(r)
	switch {
	case !ok:
		return "its size unknown"
	case src == "production":
		return fmt.Sprintf("%s, %s in production (%s)", FormatRows(sz.Rows), report.FormatBytes(sz.Bytes), Grade(sz.Rows))
	case src == "fixture":
		return FormatRows(sz.Rows) + " in the fixture"
	}
	return FormatRows(sz.Rows) + " in the scratch database, without a fixture"
}

// lockText names e's lock: "SHARE ROW EXCLUSIVE on public.agent_memories", "the rewrite of
// public.thoughts".
func lockText(e *event) string {
	if e.rewrite {
		return "the rewrite of " + e.rel.Qualified()
	}
	return modeText(e) + " on " + e.rel.Qualified()
}

// quoteName quotes an identifier for a message when SQL would need it.
func quoteName(s string) string { return pgsql.QuoteIdent(s) }

// endedInside are the commit-inside-statement findings: one per statement that ended its own
// transaction while it ran, in any traced run ([Step.EndedInside]), naming the runs.
func (in Input) endedInside() []finding.Finding {
	var order []int
	runs := map[int][]string{}
	for _, r := range in.Runs {
		if r.Trace == nil {
			continue
		}
		for _, st := range r.Trace.Steps() {
			if !st.EndedInside || st.Stmt < 0 || st.Stmt >= len(in.Script.Statements) {
				continue
			}
			if runs[st.Stmt] == nil {
				order = append(order, st.Stmt)
			}
			runs[st.Stmt] = append(runs[st.Stmt], r.Name)
		}
	}
	var out []finding.Finding
	for _, i := range order {
		where := runs[i][0] // the first run that saw it, and how many others: a message stays short
		if n := len(runs[i]) - 1; n > 0 {
			where += " and " + nouns.Count(n, "other run")
		}
		out = append(out, finding.Finding{Phase: finding.PhaseLocks, Rule: RuleCommitInsideStatement, Severity: finding.SevError, Pos: in.Script.Statements[i].Pos,
			Message: fmt.Sprintf("the statement runs COMMIT or ROLLBACK inside itself (a procedure or DO block; %s): it fails where the file runs as one transaction (supabase db push), and hides its locks from the lock trace; run each batch as a statement of its own",
				where)})
	}
	return out
}
