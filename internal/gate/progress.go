package gate

import "github.com/ledgercheck/ledgercheck/internal/report"

// installShown reports whether the report shows the phase "install VARIANT" of r: r does not
// install, and check reports it (with ports), or nothing else would (no rerun audit ran).
func (r *variantRun) installShown(steps Steps) bool {
	return r.installErr != nil && (steps.Parity || r.rerun == nil)
}

// foldedRerun is r's rerun phases as the report shows them: laid out, with what lint (in lintPh)
// or the install phase reports folded in (fold.go).
func foldedRerun(steps Steps, r *variantRun, layout rerunLayout, lintPh *report.PhaseResult) []report.PhaseResult {
	phases := foldRerun(rerunPhases(r, layout), r, lintPh)
	if r.installShown(steps) { // the install phase reports the install's failure
		phases = foldInstall(phases, r)
	}
	return phases
}

// sayRerun prints the progress line of r's rerun audit once it is done: its phase as the report
// will show it (foldedRerun, on a copy of the lint phase), so that stderr never counts a finding
// the report folds into another phase, nor calls a skipped phase's finding its own.
func (p *pipeline) sayRerun(r *variantRun) {
	lintPh := clonePhase(r.lint)
	for _, ph := range foldedRerun(p.steps, r, together, &lintPh) {
		ph.Duration = r.rerunTook
		p.say("%s", report.ProgressLine(&ph))
	}
}
