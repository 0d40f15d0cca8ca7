package gate

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/parity"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// rerunLayout is how a report lays out a variant's rerun and upgrade audits.
type rerunLayout int

const (
	together rerunLayout = iota // one phase per variant, "rerun VARIANT" (check)
	apart                       // "rerun FILE" and "upgrade from PREVIOUS" (the rerun command)
)

// portRun is a port's comparison with the artifact: its phases, and the comparison (nil when a
// variant did not install).
type portRun struct {
	phases   []report.PhaseResult
	compared *parity.Report
}

// assemble builds the report from the request and what each step returned: lint's phases, each
// variant that does not install, each port's comparison with the artifact, each install's
// cross-check, each variant's audit, then each variant's rerun audit. It is a pure function of
// its arguments: the folding of one cause into one finding (fold.go) works on copies.
func assemble(req Request, runs []*variantRun, ports []portRun, layout rerunLayout) *report.Report {
	rep := &report.Report{Tool: req.Tool, Version: req.Version, Root: req.Root, LeftLabel: req.Artifact.Label()}
	if len(req.Ports) > 0 {
		rep.RightLabel = req.Ports[0].Label()
	}
	shown := make([]variantPhases, len(runs))
	for i, r := range runs {
		shown[i] = phasesOf(req.Steps, r, layout)
	}
	// A variant read from a database alone has no file, so no lint phase.
	for i, r := range runs {
		if req.Steps.Lint && r.v.File != "" {
			rep.Phases = append(rep.Phases, shown[i].lint)
		}
	}
	for _, s := range shown {
		rep.Phases = append(rep.Phases, s.install...)
	}
	if req.Steps.Parity && len(req.Ports) == 0 {
		rep.Phases = append(rep.Phases, report.PhaseResult{Phase: finding.PhaseParity, Name: "parity", File: req.Artifact.File, Status: report.StatusSkip,
			Notes: []string{"not run: the configuration has no ports, so the artifact is checked alone (lint, install, cross-check, rerun)"}})
	}
	for _, pr := range ports {
		rep.Phases = append(rep.Phases, pr.phases...)
	}
	for _, s := range shown {
		rep.Phases = append(rep.Phases, s.crossCheck...)
	}
	for _, s := range shown {
		rep.Phases = append(rep.Phases, s.audit...)
	}
	for _, s := range shown {
		rep.Phases = append(rep.Phases, s.bodies...)
	}
	for _, s := range shown {
		rep.Phases = append(rep.Phases, s.locks...)
	}
	for _, s := range shown {
		rep.Phases = append(rep.Phases, s.rerun...)
	}
	return rep
}

// variantPhases are one variant's phases in the report.
type variantPhases struct {
	lint                                             report.PhaseResult
	install, crossCheck, audit, bodies, locks, rerun []report.PhaseResult
}

// phasesOf is the phases of one variant, each cause once (fold.go): a variant that does not
// install has one install phase (when check reports it, or when nothing else would: a
// prerequisite file that fails leaves the rerun nothing to run), and the phases that could not
// run point at it.
func phasesOf(steps Steps, r *variantRun, layout rerunLayout) variantPhases {
	out := variantPhases{lint: clonePhase(r.lint)}
	installShown := r.installShown(steps)
	if installShown {
		out.install = []report.PhaseResult{installPhase(r)}
	}
	switch {
	case !steps.CrossCheck || r.file == nil:
	case r.installErr != nil:
		out.crossCheck = []report.PhaseResult{notInstalled(r, finding.PhaseLint, "lint installed "+r.v.Name)}
	default:
		out.crossCheck = []report.PhaseResult{{Phase: finding.PhaseLint, Name: "lint installed " + r.v.Name, File: r.v.File,
			Findings: r.crossCheck,
			Notes:    []string{"what installing the file changed on pre-existing objects, against what its statements visibly do"}}}
	}
	switch {
	case r.audit != nil:
		ph := clonePhase(r.audit.phase)
		out.lint.Findings = slices.Clone(r.audit.static)
		stands := confirmAudit(&out.lint, &ph, r.audit.confirmed, r.v.Name)
		stands = append(stands, confirmObserved(&out.lint, &ph, r.audit.observed, r.v.Name)...)
		if slices.Sort(stands); len(stands) > 0 {
			ph.Folded, ph.FoldedInto = len(slices.Compact(stands)), out.lint.Name
		}
		out.audit = []report.PhaseResult{ph}
	case steps.Audit && r.file != nil && r.installErr != nil:
		out.audit = []report.PhaseResult{notInstalled(r, finding.PhaseAudit, "audit "+r.v.Name)}
	}
	out.bodies = bodiesPhases(steps, r)
	switch {
	case r.locks.phase != nil:
		out.locks = []report.PhaseResult{clonePhase(*r.locks.phase)}
	case steps.Locks && r.file != nil && r.installErr != nil:
		out.locks = []report.PhaseResult{notInstalled(r, finding.PhaseLocks, "locks "+r.v.Name)}
	}
	switch {
	case !steps.Rerun:
	case r.rerun == nil && r.file != nil && r.installErr != nil: // no database to rerun in
		out.rerun = []report.PhaseResult{notInstalled(r, finding.PhaseRerun, "rerun "+r.v.Name)}
	default:
		out.rerun = foldedRerun(steps, r, layout, &out.lint)
	}
	return out
}

// clonePhase is a copy of ph whose findings and notes can be changed without changing ph's.
func clonePhase(ph report.PhaseResult) report.PhaseResult {
	ph.Findings, ph.Notes, ph.Counts, ph.Locks = slices.Clone(ph.Findings), slices.Clone(ph.Notes), maps.Clone(ph.Counts), slices.Clone(ph.Locks)
	return ph
}

// installPhase is the phase "install VARIANT" of a variant that does not install: its
// install-failed finding, at the statement of the variant (or of a file it needs) that the
// server rejected.
func installPhase(r *variantRun) report.PhaseResult {
	ph := report.PhaseResult{Phase: finding.PhaseInstall, Name: "install " + r.v.Name, File: r.installFile, Findings: []finding.Finding{r.installFinding()}}
	if r.installFile != r.v.File {
		ph.Notes = []string{fmt.Sprintf("%s does not install at dimension %d, so %s was not installed", r.installWhat, r.v.Dim, r.v.File)}
	}
	return ph
}

// notInstalled is a phase that could not run because the variant (or a file it needs) does not
// install: skipped, pointing at the install phase that says why.
func notInstalled(r *variantRun, phase finding.Phase, name string) report.PhaseResult {
	return report.PhaseResult{Phase: phase, Name: name, File: r.v.File, Status: report.StatusSkip,
		Notes: []string{fmt.Sprintf("not run: %s does not install (see the phase install %s)", r.installFile, r.v.Name)}}
}

// rerunPhases are a variant's rerun and upgrade audits, laid out: one phase per audit (apart),
// or one for the variant (together), as check shows it.
func rerunPhases(r *variantRun, layout rerunLayout) []report.PhaseResult {
	var parts []report.PhaseResult
	for _, ph := range []*report.PhaseResult{r.rerun, r.upgrade} {
		if ph != nil {
			parts = append(parts, clonePhase(*ph))
		}
	}
	if layout == apart || r.rerun == nil {
		return parts
	}
	// The rerun audit's counts (runs, tables, rows, generated rows) are the variant's.
	ph := report.PhaseResult{Phase: finding.PhaseRerun, Name: "rerun " + r.v.Name, File: r.v.File, Duration: r.rerunTook, Counts: maps.Clone(r.rerun.Counts)}
	skipped := true // every audit checked nothing: the phase is skipped
	for _, p := range parts {
		ph.Findings = append(ph.Findings, p.Findings...)
		ph.Notes = append(ph.Notes, p.Notes...)
		skipped = skipped && p.Status == report.StatusSkip
	}
	if skipped {
		ph.Status = report.StatusSkip
	}
	return []report.PhaseResult{ph}
}

// parityAll is the parity step: each port compared with the artifact, once every variant is
// done.
func (p *pipeline) parityAll(art *variantRun, runs []*variantRun) ([]portRun, error) {
	var out []portRun
	for _, r := range runs {
		if r.port == nil {
			continue
		}
		pr, err := p.parity(art, r, *r.port)
		if err != nil {
			return nil, err
		}
		out = append(out, pr)
	}
	return out, nil
}

// parity compares a port with the artifact: the phases "parity PORT", "probes PORT" and
// "allowlist PORT"; or, when one of the two does not install, "parity PORT" skipped.
func (p *pipeline) parity(art, port *variantRun, cfg Port) (portRun, error) {
	for _, r := range []*variantRun{art, port} {
		if r.installErr != nil {
			who := "artifact " + r.v.Name // a repository's sidecar
			switch {
			case r == port:
				who = "port " + r.v.Name
			case r.v.Name == "artifact":
				who = r.v.Name
			}
			return portRun{phases: []report.PhaseResult{{Phase: finding.PhaseParity, Name: "parity " + port.v.Name, File: port.v.File, Status: report.StatusSkip,
				Notes: []string{fmt.Sprintf("not compared: the %s does not install (see the phase install %s)", who, r.v.Name)}}}}, nil
		}
	}
	var refs []*introspect.Footprint // what the files' installs did: the scope of a database read
	for _, r := range []*variantRun{art, port} {
		if r.v.File != "" {
			refs = append(refs, r.installed.Footprint)
		}
	}
	if len(refs) == 0 {
		return portRun{}, fault.Input(fmt.Errorf("the artifact and the %s are both read from databases and neither has a file: give the file of one (--artifact or --port) to say which objects to compare", port.v.Name))
	}
	rep, err := parity.Compare(p.compared(art, refs), p.compared(port, refs), p.probes, cfg.Allowlist)
	if err != nil {
		return portRun{}, err
	}
	phases := rep.Phases(art.v.Name, port.v.Name)
	for i := range phases {
		phases[i].LeftLabel, phases[i].RightLabel = art.v.Label(), port.v.Label()
	}
	return portRun{phases: phases, compared: rep}, nil
}
