package lint

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// Source parses src (the content of the file called name) and lints it. A syntax error is a
// parse-error finding: the migration would not apply, so nothing else is checked. A statement
// nested too deep to parse ([pgsql.MaxNesting]) is a too-complex finding, and nothing else is
// checked either.
func Source(name string, src []byte, cfg Config, opts Options) []finding.Finding {
	f, err := pgsql.Parse(name, src)
	return Parsed(name, f, err, cfg, opts)
}

// Parsed lints a file already parsed: f and err are what [pgsql.Parse] returned for the file
// called name (the gate parses each variant once and shares the parse). A parse error is
// reported as [Source] reports it.
func Parsed(name string, f *pgsql.File, err error, cfg Config, opts Options) []finding.Finding {
	if err != nil {
		var se *pgsql.SyntaxError
		if !errors.As(err, &se) {
			se = &pgsql.SyntaxError{Pos: finding.Position{File: name, Line: 1, Col: 1}, Msg: err.Error()}
		}
		rule, msg := ruleParseError, se.Msg+rejection(opts)
		if se.TooComplex {
			rule, msg = ruleTooComplex, se.Msg
		}
		sev, _ := cfg.severity(rule)
		return []finding.Finding{{Phase: finding.PhaseLint, Rule: rule.ID, Severity: sev, Pos: se.Pos, Message: msg}}
	}
	return Run(f, cfg, opts)
}

// Run applies every rule to f and returns the findings, suppressions applied, sorted by position.
func Run(f *pgsql.File, cfg Config, opts Options) []finding.Finding {
	var all []finding.Finding
	p := &Pass{File: f, Config: cfg, Options: opts, Own: NewOwnership(f, cfg), findings: &all}
	for _, r := range cfg.active() {
		p.rule = r
		r.Check(p)
	}
	all = applySuppressions(f, cfg, all)
	all = baseSchema(f, p.Own, cfg, all)
	sortFindings(all)
	return all
}

func sortFindings(fs []finding.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i].Pos, fs[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return fs[i].Rule < fs[j].Rule
	})
}

const ignoreMarker = "ledgercheck:ignore"

type suppression struct {
	pos  finding.Position
	rule string
	stmt int // index of the statement it applies to
	from finding.Position
	to   finding.Position
	used bool
	// audit: the rule is the installed audit's, which honours the suppression (see [Suppressed]);
	// lint cannot tell whether it is used.
	audit bool
}

// auditRule reports whether id is a rule of the installed audit (registered when the audit is
// linked in, as it is in the binary): a suppression of one is the reviewed acceptance of a fact
// only the install shows, such as anon reading every row of a table.
func auditRule(id string) bool {
	r, ok := rule.Lookup(id)
	return ok && r.Phase == finding.PhaseAudit
}

// applySuppressions drops findings suppressed by ledgercheck:ignore comments and adds findings
// for broken and unused suppressions.
func applySuppressions(f *pgsql.File, cfg Config, fs []finding.Finding) []finding.Finding {
	var extra []finding.Finding
	bad := func(pos finding.Position, r *Rule, format string, args ...any) {
		sev, on := cfg.severity(r)
		if on {
			extra = append(extra, finding.Finding{Phase: finding.PhaseLint, Rule: r.ID, Severity: sev, Pos: pos, Message: fmt.Sprintf(format, args...)})
		}
	}
	sups := suppressions(f, bad)
	kept := fs[:0]
	for _, fd := range fs {
		suppressed := false
		for _, s := range sups {
			if s.covers(fd.Rule, fd.Pos) {
				s.used, suppressed = true, true
			}
		}
		if !suppressed {
			kept = append(kept, fd)
		}
	}
	for _, s := range sups {
		if !s.used && !s.audit {
			bad(s.pos, ruleUnusedSuppression, "ledgercheck:ignore %s suppresses nothing in the statement at %d:%d; remove it", s.rule, s.from.Line, s.from.Col)
		}
	}
	return append(kept, extra...)
}

// covers reports whether the suppression applies to a finding of rule id at pos.
func (s *suppression) covers(id string, pos finding.Position) bool {
	return s.rule == id && !pos.Before(s.from) && !s.to.Before(pos)
}

// Suppressed reports whether a well-formed ledgercheck:ignore comment of f suppresses rule id
// at pos: the installed audit honours the reviewed suppression of the static rule that reports
// the same fact.
func Suppressed(f *pgsql.File, id string, pos finding.Position) bool {
	for _, s := range suppressions(f, func(finding.Position, *Rule, string, ...any) {}) {
		if s.covers(id, pos) {
			return true
		}
	}
	return false
}

// suppressions reads the ledgercheck:ignore comments of f; bad receives the malformed ones.
func suppressions(f *pgsql.File, bad func(pos finding.Position, r *Rule, format string, args ...any)) []*suppression {
	var sups []*suppression
	for _, c := range f.Comments() {
		text := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(c.Text, "--"), "/*"), "*/"))
		if !strings.HasPrefix(text, ignoreMarker) {
			continue
		}
		fields := strings.Fields(strings.TrimPrefix(text, ignoreMarker))
		if len(fields) == 0 {
			bad(c.Pos, ruleInvalidSuppression, "ledgercheck:ignore names no rule; write -- ledgercheck:ignore RULE-ID reason")
			continue
		}
		id := fields[0]
		_, static := Lookup(id)
		if !static && !auditRule(id) {
			bad(c.Pos, ruleInvalidSuppression, "ledgercheck:ignore names unknown rule %q (see `ledgercheck explain` for the rule ids)", id)
			continue
		}
		if id == ruleInvalidSuppression.ID || id == ruleUnusedSuppression.ID || id == ruleParseError.ID || id == ruleTooComplex.ID {
			bad(c.Pos, ruleInvalidSuppression, "rule %s cannot be suppressed", id)
			continue
		}
		if len(fields) < 2 {
			bad(c.Pos, ruleInvalidSuppression, "ledgercheck:ignore %s has no reason; a reviewer needs one", id)
			continue
		}
		st := statementAfter(f, c)
		if st == nil {
			bad(c.Pos, ruleInvalidSuppression, "ledgercheck:ignore %s is not on the line before a top-level statement", id)
			continue
		}
		sups = append(sups, &suppression{pos: c.Pos, rule: id, stmt: st.Index, from: st.Pos, to: f.Pos(st.End), audit: !static})
	}
	return sups
}

// statementAfter returns the top-level statement that starts on the line after the comment c,
// with only white space and comments between them, or nil.
func statementAfter(f *pgsql.File, c pgsql.Comment) *pgsql.Statement {
	i := sort.Search(len(f.Stmts), func(i int) bool { return f.Stmts[i].Start >= c.End })
	if i == len(f.Stmts) {
		return nil
	}
	st := &f.Stmts[i]
	if i > 0 && f.Stmts[i-1].End > c.Start {
		return nil // the comment is inside a statement
	}
	lines := strings.Split(f.Src[c.End:st.Start], "\n")
	if len(lines) < 2 {
		return nil // on the same line as the statement
	}
	for k, line := range lines {
		t := strings.TrimSpace(line)
		switch {
		case k == len(lines)-1 && t != "":
			return nil
		case k == 0 || k == len(lines)-1:
		case !strings.HasPrefix(t, "--"):
			return nil // a blank line or other text: the comment is not directly above
		}
	}
	return st
}
