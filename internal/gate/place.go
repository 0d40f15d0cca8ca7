package gate

import (
	"fmt"
	"strings"

	"ledgercheck/internal/locate"
	"ledgercheck/internal/report"
	"ledgercheck/internal/rerun"
)

// place points the findings of a variant's phases that have no position (the rerun and upgrade
// audits' catalog and row findings) at the statement of the variant's file that created or
// changed their object, through the one statement map of the file (locate.Index, which the
// audit and parity use too). A row finding points at the statement that most likely wrote the
// rows, which its message names; a finding no statement explains says so.
func place(r *variantRun, phases []report.PhaseResult) {
	if r.stmts == nil {
		return
	}
	for i := range phases {
		for j := range phases[i].Findings {
			f := &phases[i].Findings[j]
			if f.Pos.Line > 0 || f.Object == "" {
				continue
			}
			kind, object, ok := locate.SplitRef(f.Object)
			if !ok {
				continue
			}
			if rowsRule(f.Rule) && kind == "table" {
				if pos, what, ok := r.stmts.Changer(object); ok {
					f.Pos = pos
					f.Message += fmt.Sprintf("; most likely the %s at %s", what, pos)
					continue
				}
			}
			if pos, ok := r.stmts.Statement(kind, object, ""); ok {
				f.Pos = pos
				continue
			}
			f.Message += fmt.Sprintf("; no statement of %s names it", r.v.File)
		}
	}
}

// rowsRule reports whether a rerun or upgrade rule is about a table's rows.
func rowsRule(id string) bool {
	switch id {
	case rerun.RuleRerunRowsChanged, rerun.RuleRerunRowsAdded, rerun.RuleRerunRowsLost, rerun.RuleRerunRowsDuplicated, rerun.RuleUpgradeRowsLost:
		return true
	}
	return strings.Contains(id, "-rows-")
}
