package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/audit"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/observe"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/rerun"
)

// One cause is one finding: each function here takes copies of a variant's phases (see
// [phasesOf]) and folds a finding that another phase already reports into it, with a note in
// the phase it stands for.

// foldRerun keeps check from failing a file twice for one fact: a rerun that fails at a
// statement lint reported as not-idempotent (the rerun audit deciding what lint could only
// suspect, e.g. after a dynamic-idempotency warning) is folded into the lint finding (in
// lintPh), which says so; the rerun phase says fail, with a note that points at lint's phase.
func foldRerun(phases []report.PhaseResult, r *variantRun, lintPh *report.PhaseResult) []report.PhaseResult {
	if r.file == nil {
		return phases
	}
	flagged := map[int]bool{} // top-level statements lint reported not-idempotent
	for _, f := range lintPh.Findings {
		if f.Rule == lint.NotIdempotent {
			if st := statementAt(r.file, f.Pos); st >= 0 {
				flagged[st] = true
			}
		}
	}
	if len(flagged) == 0 {
		return phases
	}
	confirmed := map[int]string{} // statement -> the phase whose rerun failed there
	for i := range phases {
		var kept []finding.Finding
		for _, f := range phases[i].Findings {
			if st := statementAt(r.file, f.Pos); f.Rule == rerun.RuleRerunFailed && f.Pos.File == r.v.File && flagged[st] {
				phases[i].Notes = append(phases[i].Notes, fmt.Sprintf("failed: the rerun failure at %s is lint's not-idempotent finding there, reported once (lint %s)", f.Pos, r.v.Name))
				phases[i].Status = report.StatusFail
				if confirmed[st] != phases[i].Name {
					phases[i].Folded, phases[i].FoldedInto = phases[i].Folded+1, lintPh.Name
				}
				confirmed[st] = phases[i].Name
				continue
			}
			kept = append(kept, f)
		}
		phases[i].Findings = kept
	}
	// The lint finding names the phase it stands for too.
	for j, f := range lintPh.Findings {
		if name, ok := confirmed[statementAt(r.file, f.Pos)]; ok && f.Rule == lint.NotIdempotent {
			lintPh.Findings[j].Message += " (the rerun audit confirms it: " + name + ")"
		}
	}
	return phases
}

// statementAt returns the index of the top-level statement of f that holds pos, or -1.
func statementAt(f *pgsql.File, pos finding.Position) int {
	for _, st := range f.Stmts {
		end := f.Pos(st.End)
		if !pos.Before(st.Pos) && !end.Before(pos) {
			return st.Index
		}
	}
	return -1
}

// sameInstallFailure are the rerun audit's findings of a script that does not install: at the
// statement the install phase reports, they are its failure again.
var sameInstallFailure = map[string]bool{
	rerun.RuleRerunInstallFailed: true, rerun.RuleRerunFixtureFailed: true,
	rerun.RuleUpgradeFailed: true, rerun.RuleUpgradeFixtureFailed: true,
}

// foldInstall keeps check from failing a variant twice for one install failure: the phase
// "install VARIANT" reports it, so the rerun audit's finding of the same failure at the same
// statement is dropped, and a rerun phase left with no finding is skipped and points at the
// install phase instead of repeating it.
func foldInstall(phases []report.PhaseResult, r *variantRun) []report.PhaseResult {
	f := r.installFinding()
	for i := range phases {
		var kept []finding.Finding
		folded := 0
		for _, g := range phases[i].Findings {
			if sameInstallFailure[g.Rule] && g.Pos == f.Pos {
				folded++
				continue
			}
			kept = append(kept, g)
		}
		if folded == 0 {
			continue
		}
		phases[i].Findings = kept
		note := fmt.Sprintf("not run: %s does not install at %s (see the phase install %s)", r.installFile, f.Pos, r.v.Name)
		if len(kept) == 0 {
			phases[i].Status, phases[i].Notes = report.StatusSkip, []string{note}
			continue
		}
		phases[i].Notes = append([]string{note}, phases[i].Notes...)
		phases[i].Folded, phases[i].FoldedInto = 1, "install "+r.v.Name
	}
	return phases
}

// confirmAudit keeps check from failing a file twice for one fact the audit found and lint had
// reported: lint's finding (in lintPh) stands for both and says so, and the audit phase says
// fail, with a note that points at it.
// A confirmation that holds under some privilege models only marks lint's finding with them
// (finding.Models): what the static rule saw is an exposure there alone.
// Several audit rules (or one under several models) may confirm one lint finding: it says so
// once, under the models of all of them (every model when one of them holds under every one).
// It returns the indexes of the lint findings that stand for the audit's.
func confirmAudit(lintPh, auditPh *report.PhaseResult, confirmed []audit.Confirmation, variant string) []int {
	var stands []int
	for j, f := range lintPh.Findings {
		var by []audit.Confirmation
		for _, c := range confirmed {
			if c.Stands(f) {
				by = append(by, c)
				auditPh.Notes = append(auditPh.Notes, fmt.Sprintf("failed: its %s is lint's %s at %s, reported once (lint %s)", c.Audit, c.Static, f.Pos, variant))
			}
		}
		if len(by) == 0 {
			continue
		}
		all := audit.Confirmation{Models: modelsOf(by)}
		where := ""
		if all.Models != nil {
			where = " " + all.Where()
			lintPh.Findings[j].Models = all.Models
		}
		lintPh.Findings[j].Message += " (the installed audit confirms it" + where + ": audit " + variant + ")"
		auditPh.Status = report.StatusFail
		stands = append(stands, j)
	}
	return stands
}

// modelsOf is the privilege models the confirmations hold under together: nil (every one) when
// one of them holds under every one, else each model any of them names, once.
func modelsOf(cs []audit.Confirmation) []string {
	var out []string
	for _, c := range cs {
		if c.Models == nil {
			return nil
		}
		for _, m := range c.Models {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// confirmObserved does the same for what the access observation saw that lint had reported
// (anon reading a table created without row level security): lint's finding stands for both,
// and says what was observed. It returns the indexes of the lint findings that stand for it.
func confirmObserved(lintPh, auditPh *report.PhaseResult, confirmed []observe.Confirmation, variant string) []int {
	var stands []int
	for _, c := range confirmed {
		if c.Static >= len(lintPh.Findings) {
			continue
		}
		f := &lintPh.Findings[c.Static]
		if !strings.Contains(f.Message, "confirms it") {
			f.Message += " (the access observation confirms it: audit " + variant + ")"
		}
		if f.Models == nil && c.Models != nil {
			f.Models = slices.Clone(c.Models)
		}
		f.Detail = joinDetail(f.Detail, "observed: "+c.Observed)
		auditPh.Status = report.StatusFail
		if note := fmt.Sprintf("failed: what it observed on %s is lint's %s at %s, reported once (lint %s)", f.Object, f.Rule, f.Pos, variant); !slices.Contains(auditPh.Notes, note) {
			auditPh.Notes = append(auditPh.Notes, note) // once, whatever the models it was observed under
		}
		stands = append(stands, c.Static)
	}
	return stands
}

// joinDetail joins two details.
func joinDetail(a, b string) string {
	switch {
	case a == "":
		return b
	case strings.Contains(a, b):
		return a
	}
	return a + "\n" + b
}

// markModels marks lint's findings (static, as lint --install reports them, in one phase with
// the audit's) that the audit or the observation confirms under some privilege models only with
// those models, and adds what was observed to their detail, as check's confirmAudit and
// confirmObserved do.
func markModels(static []finding.Finding, confirmed []audit.Confirmation, observed []observe.Confirmation) []finding.Finding {
	out := slices.Clone(static)
	for _, c := range confirmed {
		for j := range out {
			if c.Stands(out[j]) && c.Models != nil {
				out[j].Models = slices.Clone(c.Models)
			}
		}
	}
	for _, c := range observed {
		if c.Static >= len(out) {
			continue
		}
		if out[c.Static].Models == nil && c.Models != nil {
			out[c.Static].Models = slices.Clone(c.Models)
		}
		out[c.Static].Detail = joinDetail(out[c.Static].Detail, "observed: "+c.Observed)
	}
	return out
}
