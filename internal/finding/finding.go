// Package finding is ledgercheck's finding model, a leaf every phase shares: where a finding
// points ([Position]), how bad it is ([Severity]), which part of the gate produced it ([Phase]),
// and the finding itself ([Finding]). It imports nothing of ledgercheck's, so that the output
// package (internal/report) and the database packages do not link the SQL parser to speak of
// positions (docs/architecture.md, "Packages").
package finding

import (
	"fmt"
	"strings"
)

// Position is a 1-based line and column (in Unicode code points) in a named file.
type Position struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// String renders the position as file:line:col, the form editors and CI annotations understand.
func (p Position) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Before reports whether p comes before q in the same file (by line, then column).
func (p Position) Before(q Position) bool {
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// ByteOffset converts a 1-based character (Unicode code point) position in s, as PostgreSQL
// reports error positions, to a byte offset.
func ByteOffset(s string, char int) int {
	if char <= 1 {
		return 0
	}
	n := 0
	for i := range s {
		if n == char-1 {
			return i
		}
		n++
	}
	return len(s)
}

// Severity orders findings; only errors fail the gate unless configured otherwise.
type Severity string

// The severities.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// Phase names the part of the gate that produced a finding.
type Phase string

// The phases of the gate.
const (
	PhaseLint    Phase = "lint"
	PhaseInstall Phase = "install"
	PhaseParity  Phase = "parity"
	PhaseProbe   Phase = "probe"
	PhaseRerun   Phase = "rerun"
	PhaseAllow   Phase = "allowlist"
	// PhaseAudit is the installed security audit: what the API roles can do once the file is
	// installed, asked of the catalog.
	PhaseAudit Phase = "audit"
	// PhaseLocks is the lock trace: the locks and rewrites the install takes on tables that
	// existed before the file, statement by statement.
	PhaseLocks Phase = "locks"
	// PhaseBodies is the check of the installed code: every PL/pgSQL body the file created or
	// replaced checked with plpgsql_check, its views and SQL functions planned (EXPLAIN), what
	// cannot run at the token that would fail.
	PhaseBodies Phase = "bodies"
)

// Finding is one thing the gate reports: a rule broken at a position, a difference between two
// installs, a failed rerun. It is data; rendering is internal/report's job.
type Finding struct {
	Phase Phase `json:"phase"`
	// Rule is the id of a rule registered in internal/rule.
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Pos is where the finding points in the user's file; zero when it has no position
	// (a catalog difference, for example).
	Pos     Position `json:"position,omitzero"`
	Message string   `json:"message"`
	// Object is the database object concerned, schema-qualified (e.g. "table public.thoughts").
	Object string `json:"object,omitempty"`
	// Detail is optional extra text: a unified diff, the server's error detail.
	Detail string `json:"detail,omitempty"`
	// From and To are the two texts of a textual difference (a function body, a view
	// definition), when the finding is one: the artifact's and the port's for parity, before and
	// after for a rerun; the html format shows them side by side, From in the left column. The
	// JSON keeps the names of schema version 1 (left, right).
	From string `json:"left,omitempty"`
	To   string `json:"right,omitempty"`
	// FromLabel and ToLabel name From and To when they are not the phase's two columns (the
	// artifact and the port): a difference that changed since review shows the value that was
	// reviewed and the value now ("port, reviewed", "port, now").
	FromLabel string `json:"left_label,omitempty"`
	ToLabel   string `json:"right_label,omitempty"`
	// Models are the kinds of project the finding holds in, by their default privileges
	// ("new-defaults": hosted; "old-defaults": self-hosted), when it does not hold in every
	// kind the installed audit answered for; nil when it does, and for every other phase.
	Models []string `json:"models,omitempty"`
	// Accept, when not empty, is what accepts the finding as a reviewed exception, ready to paste
	// once a person has written why (a parity difference's allowlist entry, reason TODO); the
	// reports for people show it. Where a suppression comment accepts a finding, the reports
	// write that themselves (rule.Suppressible).
	Accept string `json:"-"`
}

// String renders the finding as one line: file:line:col: severity: message [rule].
func (f Finding) String() string {
	where := ""
	if f.Pos.Line > 0 {
		where = f.Pos.String() + ": "
	}
	return fmt.Sprintf("%s%s: %s%s [%s]", where, f.Severity, f.Message, f.ObjectSuffix(), f.Rule)
}

// ObjectSuffix is " (object)" to follow the message, or "" when there is no object or the
// message already names it.
func (f Finding) ObjectSuffix() string {
	if f.Object == "" || strings.Contains(f.Message, f.Object) {
		return ""
	}
	return " (" + f.Object + ")"
}

// MaxArgList is the longest argument list a message shows; [ShortIdentity] counts the
// arguments of a longer one.
const MaxArgList = 60

// ShortIdentity shortens a function identity for a message, "public.f(text, integer)" as it
// is, a long argument list to its count: "public.match_decision_ledger(14 arguments)" (the
// finding's Object keeps the identity). Anything without an argument list is returned as it is.
func ShortIdentity(s string) string {
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") || len(s)-open <= MaxArgList {
		return s
	}
	return fmt.Sprintf("%s(%d arguments)", s[:open], strings.Count(s[open:], ",")+1)
}
