package repository

import (
	"fmt"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleMergedMigrationEdited is the rule of a branch that edits a migration the branch it merges
// into has: merged migrations are history.
var RuleMergedMigrationEdited = rule.Register(rule.Rule{ID: "merged-migration-edited", Phase: finding.PhaseLint, Severity: finding.SevError}).ID

// Edited is a migration a branch edited although the merge base has it (check --changed over a
// Supabase project's migrations): it is not checked, the migrations after it are installed
// over its merged version, and the edit is a finding.
type Edited struct {
	// Sidecar names the migration's sidecar; File is its file.
	Sidecar, File string
	// Base names the merge base (a short commit id); Merged is the file there, Now in the work
	// tree.
	Base        string
	Merged, Now []byte
}

// phase is the edit's phase: one merged-migration-edited finding, at the first line that
// differs.
func (e Edited) phase() report.PhaseResult {
	line := firstDifference(string(e.Merged), string(e.Now))
	return report.PhaseResult{Phase: finding.PhaseLint, Name: "history " + e.Sidecar, Sidecar: e.Sidecar, File: e.File,
		Findings: []finding.Finding{{Phase: finding.PhaseLint, Rule: RuleMergedMigrationEdited, Severity: finding.SevError,
			Pos:     finding.Position{File: e.File, Line: line, Col: 1},
			Message: fmt.Sprintf("%s is a merged migration (%s has it) and the branch edits it: merged migrations are history, so the edit reaches no database that ran it; undo it and add a new migration", e.File, e.Base)}},
		Notes: []string{fmt.Sprintf("not checked: the migrations after it are checked over its version at %s", e.Base)}}
}

// firstDifference is the first line (1-based) where a and b differ.
func firstDifference(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}
