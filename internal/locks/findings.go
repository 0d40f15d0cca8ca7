package locks

import (
	"fmt"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// findings are e's findings: what its lock blocks (an ACCESS EXCLUSIVE lock or a rewrite, a
// write-blocking lock), taken with no lock_timeout set, and held across slow statements. A lock
// that blocks no write is in the lock table only.
func (in Input) findings(e *event) []finding.Finding {
	if !e.notable() {
		return nil
	}
	at := e.stmt.Pos
	run := in.runText(e)
	obj := "table " + e.rel.Qualified()
	var out []finding.Finding
	add := func(rule string, sev finding.Severity, msg string) {
		out = append(out, finding.Finding{Phase: finding.PhaseLocks, Rule: rule, Severity: sev, Pos: at, Object: obj, Message: msg + run})
	}
	rel, size, tag := e.rel.Qualified(), in.sizeText(e.rel), command(e.step.Tag)
	switch {
	case e.rewrite:
		add(RuleLockAccessExclusive, finding.SevError, fmt.Sprintf("%s rewrites table %s: %s; every read and write of it waits until the transaction ends (ACCESS EXCLUSIVE)",
			tag, rel, size))
	case e.mode == AccessExclusive:
		add(RuleLockAccessExclusive, in.briefSeverity(e.rel), fmt.Sprintf("%s takes ACCESS EXCLUSIVE on table %s, which existed before the file: every read and write of it waits until the transaction ends (%s)",
			tag, rel, size))
	default:
		add(RuleLockBlocksWrites, finding.SevWarning, fmt.Sprintf("%s takes %s on table %s: it blocks %s on %s until the transaction ends (%s)",
			tag, e.mode, rel, e.mode.Blocks(), rel, size))
	}
	what := modeText(e) + " on table " + rel
	if !in.timeout(e) {
		add(RuleLockWithoutTimeout, finding.SevWarning, what+" is taken with no lock_timeout set before it in the file: it waits behind any long query on the table, and every query of the table queues behind it; SET LOCAL lock_timeout first")
	}
	if len(e.slow) > 0 {
		add(RuleLockHeldAcrossSlowStatements, finding.SevWarning, fmt.Sprintf("%s is held across %s until its transaction ends at line %d, %d of them slow (over %s at fixture scale: %s): writers wait that long, longer on production's rows",
			what, nouns.Count(e.later, "later statement"), e.end.Pos.Line, len(e.slow), report.FormatDuration(in.Slow), lines(e.slow)))
	}
	return out
}

// briefSeverity is the severity of an ACCESS EXCLUSIVE lock that rewrites nothing (a change of
// the catalog alone, such as ADD COLUMN without a volatile default): an error on a table
// production's statistics grade medium or larger, where the lock queues busy traffic; else a
// warning, since the lock lasts as long as the transaction and its wait is lock-without-timeout's.
func (in Input) briefSeverity(r Relation) finding.Severity {
	if sz, src, ok := in.size(r); ok && src == "production" && Grade(sz.Rows) != "small" {
		return finding.SevError
	}
	return finding.SevWarning
}

// timeout reports whether a lock_timeout is set in the file before e's statement.
func (in Input) timeout(e *event) bool { return in.plan.timeout[e.step.Stmt] }

// lines names the statements' lines: "line 12", "lines 12 and 14", "lines 3, 5 and 9".
func lines(sts []scratch.Statement) string {
	ls := make([]string, len(sts))
	for i, st := range sts {
		ls[i] = fmt.Sprint(st.Pos.Line)
	}
	if len(ls) == 1 {
		return "line " + ls[0]
	}
	return "lines " + strings.Join(ls[:len(ls)-1], ", ") + " and " + ls[len(ls)-1]
}

// runText says which run took a lock, after a finding's message: nothing for the install.
func (in Input) runText(e *event) string {
	if e.run == 0 {
		return ""
	}
	name := in.Runs[e.run].Name
	if strings.HasPrefix(name, "run ") {
		return " (" + name + ": the file applied again)"
	}
	return " (" + name + ")"
}

// modeText is the mode of e's lock as SQL writes it; a rewrite's is ACCESS EXCLUSIVE.
func modeText(e *event) string {
	if e.mode == 0 {
		return AccessExclusive.String()
	}
	return e.mode.String()
}

// command is a command tag without its row counts: "SELECT 1" is SELECT, "INSERT 0 5" INSERT.
func command(tag string) string {
	return strings.TrimRight(tag, " 0123456789")
}
