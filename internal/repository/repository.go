// Package repository checks a repository of sidecars in one run: every sidecar (or those a
// branch changed, and what needs them) through the gate, each over the sidecars it needs, on one
// scratch server, and one report for the run. It is a layer above internal/gate: a sidecar is a
// gate.Request of its own, whose prerequisites are its needs' files, in dependency order.
package repository

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// Sidecar is one sidecar of the repository.
type Sidecar struct {
	// Name names the sidecar; its artifact's phases are named after it ("lint NAME"), its
	// ports' after it and the port ("parity NAME/PORT").
	Name string
	// Needs are the names of the sidecars it needs directly.
	Needs []string
	// Request is the gate's request for the sidecar alone: its artifact, ports, own prerequisite
	// files, fixture, probes, lint policy and steps. Run names its variants, puts its needs'
	// files (and their own prerequisite files) before its prerequisites, and runs it on the
	// run's server.
	Request gate.Request
}

// Request is a run over a repository.
type Request struct {
	// Sidecars are every sidecar of the repository, each after those it needs.
	Sidecars []Sidecar
	// Check names the sidecars to check, nil every one. A sidecar that is not checked is
	// still installed before those that need it.
	Check []string
	// Nothing is the note of a run that checks no sidecar (Check empty but not nil): why.
	Nothing string
	// Edited are the merged migrations a branch edited (check --changed): each a finding, in a
	// phase of its own before the sidecars checked.
	Edited []Edited
	// Workers bounds how many sidecars are checked at once (each runs its variants side by side
	// as well); 0 is 2.
	Workers int
	// MaxSidecars bounds how many sidecars one run checks, and MaxDepth how long a chain of
	// needs may be (limits.sidecars, limits.needs_depth); 0 is no bound. Past either, Run
	// returns an input error that says what to do.
	MaxSidecars, MaxDepth int
	// Start starts the scratch server with every template the run uses; Server, when not nil,
	// is a running server used instead (and left running).
	Start  func(ctx context.Context, templates []scratch.TemplateSpec) (*scratch.Server, error)
	Server *scratch.Server
	// Logf receives progress lines; nil discards them.
	Logf func(format string, args ...any)
	// Tool, Version and Root are copied into the report.
	Tool, Version, Root string
}

// Run checks the sidecars req names and returns one report: each sidecar's phases under its
// name, in dependency order, and one verdict. The error is for what the user must fix outside
// the migrations (no Postgres, an interrupted run), as gate.Run's.
func Run(ctx context.Context, req Request) (*report.Report, error) {
	t0 := time.Now()
	rep := &report.Report{Tool: req.Tool, Version: req.Version, Root: req.Root}
	checked := req.checked()
	for _, e := range req.Edited {
		rep.Phases = append(rep.Phases, e.phase())
		rep.Sidecars = append(rep.Sidecars, report.Sidecar{Name: e.Sidecar, File: e.File})
	}
	if len(checked) == 0 {
		if len(req.Edited) == 0 {
			rep.Phases = []report.PhaseResult{{Phase: finding.PhaseInstall, Name: "changed", Status: report.StatusSkip, Notes: []string{req.Nothing}}}
		}
		rep.Duration = time.Since(t0)
		rep.Finish()
		return rep, nil
	}
	if err := req.bounds(checked); err != nil {
		return nil, err
	}
	reqs := make([]gate.Request, len(checked))
	var uses []scratch.TemplateSpec
	for i, s := range checked {
		reqs[i] = req.sidecarRequest(s)
		uses = append(uses, gate.Templates(reqs[i])...)
	}
	// The server starts with every sidecar's templates, checked or not: a run of some sidecars
	// (check --changed) then takes the same entry of the cache across runs as a run of all.
	var templates []scratch.TemplateSpec
	for _, s := range req.Sidecars {
		templates = append(templates, gate.Templates(req.sidecarRequest(s))...)
	}
	srv := req.Server
	if srv == nil {
		var err error
		if srv, err = req.Start(ctx, templates); err != nil {
			return nil, err
		}
		// Each sidecar drops its databases when it is done (the gate's own run leaves them to
		// Close instead): a repository's run would otherwise hold every sidecar's databases at
		// once, against the scratch size limit (twelve sidecars: 342 MB at the peak instead of
		// 166 MB, for the same time).
		defer func() {
			if err := srv.Close(); err != nil && req.Logf != nil {
				req.Logf("check: stopping the scratch server: %v", err)
			}
		}()
	}
	// Each template is dropped once the last sidecar that copies it, and the last template
	// built from it, are done: a long chain holds a few templates at a time.
	srv.Expect(uses)
	sg := &suggester{all: req.Sidecars}
	reports, err := runEach(ctx, srv, reqs, req.Workers, func(i int, rep *report.Report) error {
		// A sidecar that does not install may lack a need: found and confirmed while its
		// template is still there.
		if err := sg.suggest(ctx, srv, checked[i], reqs[i], rep); err != nil {
			return err
		}
		for _, sp := range gate.Templates(reqs[i]) {
			if err := srv.Release(ctx, sp); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	merge(rep, checked, reports)
	rep.Duration = time.Since(t0)
	rep.Finish()
	if req.Logf != nil {
		req.Logf("check: %s: %s in %s", nouns.Count(len(checked), "sidecar"), rep.Status(), report.FormatDuration(rep.Duration))
	}
	return rep, nil
}

// checked are the sidecars the run checks, in dependency order.
func (req Request) checked() []Sidecar {
	if req.Check == nil {
		return req.Sidecars
	}
	var out []Sidecar
	for _, s := range req.Sidecars {
		if slices.Contains(req.Check, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// sidecarRequest is s's gate request on the run: its variants named after it, and its
// Prerequisites.
func (req Request) sidecarRequest(s Sidecar) gate.Request {
	r := s.Request
	r.Artifact.Name = s.Name
	r.Ports = slices.Clone(r.Ports)
	for i := range r.Ports {
		r.Ports[i].Name = s.Name + "/" + r.Ports[i].Name
	}
	r.Prerequisites = Prerequisites(req.Sidecars, s)
	r.Command = "check " + s.Name
	r.Logf, r.Tool, r.Version, r.Root = req.Logf, req.Tool, req.Version, req.Root
	return r
}

// Prerequisites are the files installed before s's own, of all the repository's sidecars (in
// dependency order): the files of the sidecars s needs, directly or not, each after its own
// prerequisite files, then s's own prerequisite files, each file once.
func Prerequisites(all []Sidecar, s Sidecar) []gate.SQLFile {
	var pre []gate.SQLFile
	add := func(x gate.SQLFile) {
		if !slices.ContainsFunc(pre, func(y gate.SQLFile) bool { return y.Name == x.Name }) {
			pre = append(pre, x)
		}
	}
	needed := Closure(all, []string{s.Name}, needsOf)
	for _, n := range all { // dependency order
		if n.Name == s.Name || !slices.Contains(needed, n.Name) {
			continue
		}
		for _, x := range n.Request.Prerequisites {
			add(x)
		}
		add(gate.SQLFile{Name: n.Request.Artifact.File, Src: n.Request.Artifact.Src})
	}
	for _, x := range s.Request.Prerequisites {
		add(x)
	}
	return pre
}

// needsOf follows the edges from a sidecar to those it needs.
func needsOf(s Sidecar) []string { return s.Needs }

// dependentsOf returns the edges from a sidecar to those that need it.
func dependentsOf(all []Sidecar) func(Sidecar) []string {
	return func(s Sidecar) []string {
		var out []string
		for _, d := range all {
			if slices.Contains(d.Needs, s.Name) {
				out = append(out, d.Name)
			}
		}
		return out
	}
}

// Closure returns the names reachable from names through edges (names included), in the order
// of all.
func Closure(all []Sidecar, names []string, edges func(Sidecar) []string) []string {
	byName := map[string]Sidecar{}
	for _, s := range all {
		byName[s.Name] = s
	}
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		s, ok := byName[n]
		if !ok || seen[n] {
			return
		}
		seen[n] = true
		for _, m := range edges(s) {
			walk(m)
		}
	}
	for _, n := range names {
		walk(n)
	}
	var out []string
	for _, s := range all {
		if seen[s.Name] {
			out = append(out, s.Name)
		}
	}
	return out
}

// Affected returns the sidecars a change to the named ones concerns: those, and every sidecar
// that needs one of them, directly or not, in the order of all.
func Affected(all []Sidecar, changed []string) []string {
	return Closure(all, changed, dependentsOf(all))
}

// runEach runs every request on srv, at most workers at once, started in their order (each
// after those it needs), and returns their reports in that order; done is called with each
// request once its run is over. The first error cancels the others.
func runEach(ctx context.Context, srv *scratch.Server, reqs []gate.Request, workers int, done func(i int, rep *report.Report) error) ([]*report.Report, error) {
	if workers <= 0 {
		workers = 2
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reports := make([]*report.Report, len(reqs))
	slots := make(chan struct{}, workers)
	g := fault.Group{Cancel: cancel}
	for i, r := range reqs {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		r.Server = srv
		g.Go(func() error {
			defer func() { <-slots }()
			res, err := gate.Run(ctx, r)
			if err == nil {
				err = done(i, res.Report)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", r.Artifact.Name, err)
			}
			reports[i] = res.Report
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return reports, nil
}

// merge puts each sidecar's phases into rep in order, each with its sidecar, the sidecars with
// their check's time, and the one server they ran on with everything that ran there. A sidecar that needs one that does not install (directly or not) is
// reported as not checked, pointing at that install, rather than as a failure of its own.
func merge(rep *report.Report, checked []Sidecar, reports []*report.Report) {
	broken := map[string]string{} // a sidecar not checked or not installed -> the one that does not install
	for i, s := range checked {
		r := reports[i]
		sc := report.Sidecar{Name: s.Name, File: s.Request.Artifact.File, Needs: s.Needs}
		if need, root := brokenNeed(s, broken); root != "" {
			rep.Sidecars = append(rep.Sidecars, sc)
			via := ""
			if need != root {
				via = " (through " + need + ")"
			}
			rep.Phases = append(rep.Phases, report.PhaseResult{Phase: finding.PhaseInstall, Name: "install " + s.Name, Sidecar: s.Name, File: s.Request.Artifact.File, Status: report.StatusSkip,
				Notes: []string{fmt.Sprintf("not checked: %s needs %s%s, which does not install (see the phase install %s)", s.Name, root, via, root)}})
			broken[s.Name] = root
			continue
		}
		sc.Duration = r.Duration
		rep.Sidecars = append(rep.Sidecars, sc)
		for _, ph := range r.Phases {
			ph.Sidecar = s.Name
			if ph.Phase == finding.PhaseInstall && ph.Name == "install "+s.Name && ph.Status == report.StatusFail {
				broken[s.Name] = s.Name
			}
			if ph.Name == "parity" { // the gate's note that the sidecar has no ports
				ph.Name += " " + s.Name
			}
			rep.Phases = append(rep.Phases, ph)
		}
		for _, sv := range r.Servers {
			if len(rep.Servers) == 0 {
				rep.Servers = []report.Server{{Version: sv.Version, Kind: sv.Kind}}
			}
			rep.Servers[0].Ran = append(rep.Servers[0].Ran, sv.Ran...)
		}
	}
}

// brokenNeed returns a sidecar s needs directly that was checked before it and does not install,
// or is not checked because of one, and that one; "", "" when there is none.
func brokenNeed(s Sidecar, broken map[string]string) (need, root string) {
	for _, n := range s.Needs {
		if r, ok := broken[n]; ok {
			return n, r
		}
	}
	return "", ""
}
