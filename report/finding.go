package report

import (
	"fmt"
	"strings"

	"ledgercheck/pgsql"
)

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
)

// Finding is one thing the gate reports: a rule broken at a position, a difference between two
// installs, a failed rerun. It is data; rendering is the formats' job.
type Finding struct {
	Phase    Phase    `json:"phase"`
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Pos is where the finding points in the user's file; zero when it has no position
	// (a catalog difference, for example).
	Pos     pgsql.Position `json:"position,omitzero"`
	Message string         `json:"message"`
	// Object is the database object concerned, schema-qualified (e.g. "table public.thoughts").
	Object string `json:"object,omitempty"`
	// Detail is optional extra text: a unified diff, the server's error detail.
	Detail string `json:"detail,omitempty"`
	// Left and Right are the two sides of a textual difference (a function body, a view
	// definition), when the finding is one; the html format shows them side by side.
	Left  string `json:"left,omitempty"`
	Right string `json:"right,omitempty"`
}

// String renders the finding as one line: file:line:col: severity: message [rule].
func (f Finding) String() string {
	where := ""
	if f.Pos.Line > 0 {
		where = f.Pos.String() + ": "
	}
	return fmt.Sprintf("%s%s: %s%s [%s]", where, f.Severity, f.Message, f.objectSuffix(), f.Rule)
}

// DiffText returns the finding's detail, or, when it has none and carries the two sides of a
// textual difference, a unified diff of them.
func (f Finding) DiffText() string {
	if f.Detail == "" && (f.Left != "" || f.Right != "") {
		return unifiedText(f.Left, f.Right)
	}
	return f.Detail
}

// objectSuffix is " (object)" to follow the message, or "" when there is no object or the
// message already names it.
func (f Finding) objectSuffix() string {
	if f.Object == "" || strings.Contains(f.Message, f.Object) {
		return ""
	}
	return " (" + f.Object + ")"
}
