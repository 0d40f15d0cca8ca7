package pgsql

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// Job is a pg_cron job whose command the file gives: a call of cron.schedule,
// cron.schedule_in_database or cron.alter_job with a command argument, anywhere in the file
// (at top level, in a DO block, in a function body). pg_cron runs the command later, as SQL text,
// so that SQL is the file's too: a command that is a string literal (or a dollar-quoted string)
// is parsed like the file's own statements, its statements [Op]s in the context [InJob] at their
// place inside the literal.
type Job struct {
	// Func is the function called (cron.schedule, ...), Pos where the call is, Stmt the index of
	// the top-level statement that holds it and Context where that call runs.
	Func    Name             `json:"func"`
	Pos     finding.Position `json:"pos"`
	Stmt    int              `json:"stmt"`
	Context Context          `json:"context"`
	// Name is the job's name when the call gives it as a literal (schedule with three arguments,
	// schedule_in_database): scheduling a name again replaces that job's command.
	Name string `json:"name,omitempty"`
	// Literal reports whether the command is a string literal, whose value is Command; otherwise
	// it is built when the call runs (a concatenation, format(), a variable) and cannot be read.
	Literal bool   `json:"literal"`
	Command string `json:"command,omitempty"`

	cmdStart int   // the file offset of the command's first byte
	cmdIdx   []int // per-byte file offsets when the command is not a plain slice of the file
}

// CommandOffset returns the byte offset in the file of byte i of Command (len(Command): just
// past it).
func (j *Job) CommandOffset(i int) int {
	if j.cmdIdx == nil {
		return j.cmdStart + i
	}
	return j.cmdIdx[max(0, min(i, len(j.cmdIdx)-1))]
}

// jobFunctions are pg_cron's functions that take a job's command, with the position of the
// command among their arguments (by the number of arguments given, -1: any number), as pg_cron
// 1.6 declares them: schedule(schedule, command), schedule(job_name, schedule, command),
// schedule_in_database(job_name, schedule, command, database, ...), alter_job(job_id,
// schedule, command, ...).
var jobFunctions = map[string]func(nargs int) int{
	"schedule": func(n int) int {
		if n == 2 {
			return 1
		}
		return 2
	},
	"schedule_in_database": func(int) int { return 2 },
	"alter_job":            func(int) int { return 2 },
}

// pendingJob is a job call met while a statement's calls are collected; its command is parsed
// once the statement's op is recorded ([analyzer.jobs]).
type pendingJob struct {
	sc  *scope
	job Job
	lit *literal // the command's literal in sc.src, nil when it is not one
}

// jobCall records x when it is a call of pg_cron that takes a command (qualified with cron, or
// unqualified with cron on the search_path).
func (a *analyzer) jobCall(sc *scope, x *pg_query.FuncCall, op *draft) {
	names := strs(x.Funcname)
	if len(names) == 0 || len(names) > 2 {
		return
	}
	name := names[len(names)-1]
	at, ok := jobFunctions[name]
	if !ok || len(names) == 2 && names[0] != "cron" || len(names) == 1 && !slices.Contains(a.path, "cron") {
		return
	}
	cmd := argument(x.Args, "command", at(len(x.Args)))
	if cmd == nil {
		return
	}
	j := Job{Func: Name{Schema: "cron", Name: name}, Pos: op.Pos, Stmt: sc.stmt, Context: sc.ctx}
	if name != "alter_job" && (name != "schedule" || len(x.Args) > 2) {
		if c := argument(x.Args, "job_name", 0).GetAConst(); c != nil && c.GetSval() != nil {
			j.Name = c.GetSval().Sval
		}
	}
	if x.Location >= 0 {
		j.Pos = a.pos(sc, int(x.Location))
	}
	p := pendingJob{sc: sc, job: j}
	if c := cmd.GetAConst(); c != nil && c.GetSval() != nil {
		if lit, ok := readLiteral(sc.src, int(c.Location)); ok && lit.value == c.GetSval().Sval {
			p.lit = lit
		}
	}
	a.pending = append(a.pending, p)
}

// argument returns the argument of a job call named name, or the one at index i when none is
// named; nil when there is none or it is NULL (alter_job leaving the command as it is). A cast
// of a literal ('...'::text) is the literal.
func argument(args []*pg_query.Node, name string, i int) *pg_query.Node {
	var cmd *pg_query.Node
	for k, arg := range args {
		if na := arg.GetNamedArgExpr(); na != nil {
			if na.Name == name {
				cmd = na.Arg
			}
			continue
		}
		if k == i {
			cmd = arg
		}
	}
	for cmd != nil && cmd.GetTypeCast() != nil {
		cmd = cmd.GetTypeCast().Arg
	}
	if c := cmd.GetAConst(); c != nil && c.Isnull {
		return nil
	}
	return cmd
}

// jobs records the job calls of the statement just recorded, and analyses each literal command
// as SQL in the context InJob, its positions inside the literal.
func (a *analyzer) jobs() {
	pending := a.pending
	a.pending = nil
	for _, p := range pending {
		j := p.job
		if p.lit == nil {
			a.f.Jobs = append(a.f.Jobs, j)
			continue
		}
		lit, sc := p.lit, p.sc
		m := func(i int) int { return sc.m(lit.pos(i)) }
		j.Literal, j.Command = true, lit.value
		j.cmdStart = m(0)
		if lit.idx != nil || sc.ctx != TopLevel {
			j.cmdIdx = make([]int, len(lit.value)+1)
			for i := range j.cmdIdx {
				j.cmdIdx[i] = m(i)
			}
		}
		a.f.Jobs = append(a.f.Jobs, j)
		if sc.depth >= maxDepth {
			continue
		}
		if prob := a.parseNested(sc, lit.value, m, InJob, Name{}, true); prob != nil {
			prob.Syntax = false
			prob.Msg = "the command of the pg_cron job does not parse: " + prob.Msg
			a.probs = append(a.probs, *prob)
		}
	}
}
