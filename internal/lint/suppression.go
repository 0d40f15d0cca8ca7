package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/didyoumean"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// The suppression comments: "-- ledgercheck:ignore RULE[, RULE...] reason" on the line before
// a top-level statement suppresses those rules' findings in that statement;
// "-- ledgercheck:ignore-file RULE[, RULE...] reason", anywhere in the file, suppresses them
// in the whole file, for rules that are not security rules ([securityRule]).
const (
	ignoreMarker = "ledgercheck:ignore"
	ignoreFile   = "ledgercheck:ignore-file"
)

// suppressionUsage is how to write a suppression, for the messages about malformed ones.
const suppressionUsage = "write -- ledgercheck:ignore RULE[, RULE...] reason (the next statement) or -- ledgercheck:ignore-file RULE[, RULE...] reason (the whole file)"

type suppression struct {
	pos  finding.Position
	rule string
	// file: an ignore-file suppression, which covers the whole file; from and to are unset.
	file bool
	from finding.Position
	to   finding.Position
	used bool
	// audit: the rule is the installed audit's or the lock trace's, which honour the suppression
	// (see [Suppressed]); lint cannot tell whether it is used.
	audit bool
}

// installedRule reports whether id is a rule of a phase that reads the installed database and
// honours ledgercheck:ignore (the installed audit, the check of the installed bodies, the lock
// trace; registered when they are linked in, as they are in the binary): a suppression of one is
// the reviewed acceptance of a fact only the install shows, such as anon reading every row of a
// table, a variable a body never reads or a lock on an existing table; those phases honour it
// ([Suppressed]), and lint cannot tell whether it is used.
func installedRule(id string) bool {
	r, ok := rule.Registered(id)
	return ok && rule.Installed(r.Phase)
}

// securityRules are the lint rules about who can do what with the file's objects, or that hide
// statements from those rules: a file-level suppression may not silence them, so that a
// reviewer sees each exception at its statement. Every rule of the installed audit is a
// security rule too ([securityRule]).
var securityRules = []string{
	BodyNotAnalysed, DynamicSQL, FunctionSearchPath, GrantLeavesPublic, GrantToAPIRole,
	MissingExplicitGrant, ModifiesExistingObject, SecurityDefinerPublicExecute,
	SecurityDefinerSearchPath, ShadowsPgCatalog, TableNoServiceRoleGrant, TableNoServiceRolePolicy,
	TableRLSDisabled, UnsafeServerAccess, UndeclaredChange, AttachesToExistingTable,
}

// securityRule reports whether id is a security rule: one of [securityRules], the audit's, or
// an installed body's rule tagged security (SQL injection).
func securityRule(id string) bool {
	if slices.Contains(securityRules, id) {
		return true
	}
	r, ok := rule.Lookup(id)
	return ok && (r.Phase == finding.PhaseAudit || r.Phase == finding.PhaseBodies && slices.Contains(r.Tags, "security"))
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
		switch {
		case s.used || s.audit:
		case s.file:
			bad(s.pos, ruleUnusedSuppression, "ledgercheck:ignore-file %s suppresses nothing in the file; remove it", s.rule)
		default:
			bad(s.pos, ruleUnusedSuppression, "ledgercheck:ignore %s suppresses nothing in the statement at %d:%d; remove it", s.rule, s.from.Line, s.from.Col)
		}
	}
	return append(kept, extra...)
}

// covers reports whether the suppression applies to a finding of rule id at pos.
func (s *suppression) covers(id string, pos finding.Position) bool {
	return s.rule == id && (s.file || !pos.Before(s.from) && !s.to.Before(pos))
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
		form, ok := suppressionForm(text)
		if !ok {
			continue
		}
		if form != ignoreMarker && form != ignoreFile {
			bad(c.Pos, ruleInvalidSuppression, "unknown suppression %s%s; %s", form, formHint(form), suppressionUsage)
			continue
		}
		rest := strings.TrimSpace(strings.TrimPrefix(text, form))
		ids, reason, msg := suppressionRules(form, rest)
		if msg != "" {
			bad(c.Pos, ruleInvalidSuppression, "%s", msg)
			continue
		}
		if reason == "" {
			bad(c.Pos, ruleInvalidSuppression, "%s %s has no reason; a reviewer needs one", form, strings.Join(ids, ", "))
			continue
		}
		var st *pgsql.Statement
		if form == ignoreMarker {
			if st = statementAfter(f, c); st == nil {
				bad(c.Pos, ruleInvalidSuppression, "%s %s is not on the line before a top-level statement", form, strings.Join(ids, ", "))
				continue
			}
		}
		for _, id := range ids {
			s := &suppression{pos: c.Pos, rule: id, file: st == nil, audit: installedRule(id)}
			if st != nil {
				s.from, s.to = st.Pos, f.Pos(st.End)
			}
			sups = append(sups, s)
		}
	}
	return sups
}

// suppressionForm reads the form of a comment that is, or looks like, a suppression: its
// text starts with ledgercheck:ignore, or with "ledgercheck:" and a word near a form (a typo
// such as ledgercheck:ignoer, or a space after the colon), which is an unknown form rather than
// prose. form is the text up to the end of that word; ok is false for any
// other comment.
func suppressionForm(text string) (form string, ok bool) {
	const prefix = "ledgercheck:"
	after, found := strings.CutPrefix(text, prefix)
	if !found {
		return "", false
	}
	trimmed := strings.TrimLeft(after, " \t")
	word, _, _ := strings.Cut(trimmed, " ")
	word, _, _ = strings.Cut(word, "\t")
	form = text[:len(text)-len(trimmed)+len(word)]
	if !strings.HasPrefix(text, ignoreMarker) && formHint(form) == "" {
		return "", false
	}
	return form, true
}

// formHint is " (did you mean F?)" for the suppression form F nearest to an unknown form
// (spaces in it dropped, so that "ledgercheck: ignore" suggests ledgercheck:ignore), else "".
func formHint(form string) string {
	joined := strings.Join(strings.Fields(form), "")
	if joined != form && (joined == ignoreMarker || joined == ignoreFile) {
		return " (did you mean " + joined + "?)"
	}
	return didyoumean.Hint(joined, []string{ignoreMarker, ignoreFile})
}

// suppressionRules reads the rule ids at the start of rest, the text after the suppression's
// form ("a, b reason"), and the reason after them; msg says what is wrong with them, if anything.
func suppressionRules(form, rest string) (ids []string, reason, msg string) {
	for {
		i := strings.IndexAny(rest, ", \t")
		if i < 0 {
			i = len(rest)
		}
		ids = append(ids, rest[:i])
		rest = strings.TrimLeft(rest[i:], " \t")
		if !strings.HasPrefix(rest, ",") {
			break
		}
		rest = strings.TrimLeft(rest[1:], " \t")
	}
	for _, id := range ids {
		if msg = checkSuppressedRule(form, id); msg != "" {
			return nil, "", msg
		}
	}
	return ids, rest, ""
}

// checkSuppressedRule says what is wrong with suppressing rule id with a comment of form, or "".
func checkSuppressedRule(form, id string) string {
	_, static := Lookup(id)
	switch {
	case id == "":
		return form + " names no rule (or an empty one between commas); " + suppressionUsage
	case !static && !installedRule(id):
		if c := didyoumean.Closest(id, rule.IDs()); c != "" {
			return fmt.Sprintf("%s names unknown rule %q: did you mean %s?", form, id, c)
		}
		return fmt.Sprintf("%s names unknown rule %q (see `ledgercheck explain` for the rule ids)", form, id)
	case !rule.Suppressible(id):
		return "rule " + id + " cannot be suppressed"
	case form == ignoreFile && securityRule(id):
		return fmt.Sprintf("%s cannot suppress %s, a security rule: suppress each statement with -- %s %s reason, so that a reviewer sees every exception", form, id, ignoreMarker, id)
	}
	return ""
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
