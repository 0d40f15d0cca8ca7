package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/internal/repository"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// checkSteps are the steps check runs on every variant.
var checkSteps = gate.Steps{Lint: true, CrossCheck: true, Audit: true, Parity: true, Rerun: true, Bodies: true, Locks: true}

// variantFlags are the flags that name or change one variant; a repository's configuration
// (version 3) has a variant per sidecar, so they do not apply to it.
var variantFlags = []string{"artifact", "artifact-dim", "artifact-dsn", "port", "port-dim", "port-dsn", "allowlist", "only", "artifact-previous", "port-previous"}

// refuseVariantFlags refuses the flags that name one variant for a repository's configuration.
func refuseVariantFlags(cmd *cobra.Command, cfg *config.Config) error {
	for _, name := range variantFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			return fault.Input(fmt.Errorf("--%s: %s lists sidecars (version %d), each with its own variants: change the sidecar's entry instead", name, cfg.Path, config.RepositoryVersion))
		}
	}
	return nil
}

// repositoryRequest is check's run over a repository's configuration: every sidecar with its
// gate request, or, with --changed, those the branch changed and those that need them, each
// changed variant's upgrade audited from its version at the merge base.
func (f *checkFlags) repositoryRequest(cmd *cobra.Command, g *globals, cfg *config.Config) (repository.Request, error) {
	req := repository.Request{
		Start: func(ctx context.Context, t []scratch.TemplateSpec) (*scratch.Server, error) {
			return g.startServer(ctx, &f.sf, t)
		},
		Logf: func(format string, args ...any) { g.logf(format, args...) },
		Tool: "ledgercheck", Version: Version, Root: ".",
		MaxSidecars: cfg.Limits.Sidecars, MaxDepth: cfg.Limits.NeedsDepth,
	}
	o := config.Overrides{Fixture: f.fixture, Times: changed(cmd.Flags(), "times", &f.times), TableStats: f.tableStats}
	var err error
	if req.Sidecars, err = sidecarsOf(cfg, g, &f.sf, "check", checkSteps, o); err != nil {
		return req, err
	}
	if f.sidecar != "" {
		if f.changed != "" {
			return req, fault.Input(fmt.Errorf("--sidecar %s and --changed %s: give one (--changed checks what a branch changed, --sidecar one sidecar)", f.sidecar, f.changed))
		}
		if _, err := cfg.Sidecar(f.sidecar); err != nil {
			return req, err
		}
		req.Check = []string{f.sidecar}
		return req, nil
	}
	if f.changed == "" {
		return req, nil
	}
	if f.artifactPrevious != "" || f.portPrevious != "" {
		return req, fault.Input(fmt.Errorf("--changed %s audits each changed file's upgrade from its version at the merge base: drop --artifact-previous and --port-previous", f.changed))
	}
	ch, err := gitChanges(cmd.Context(), cfg.Scope, filepath.Dir(cfg.Path), f.changed)
	if err != nil {
		return req, err
	}
	var names []string
	all := ch.changed(cfg.Path) // a changed configuration may change any sidecar's needs or policy
	migrations := map[string]bool{}
	for i, s := range cfg.Repository() {
		if s.Migration {
			migrations[s.Name] = true
			if isNew, edited := ch.migration(cmd.Context(), &req, i); isNew || all && !edited {
				names = append(names, s.Name)
			}
			continue
		}
		if ch.apply(cmd.Context(), &req.Sidecars[i].Request) || all || ch.inputs(s.Config) {
			names = append(names, req.Sidecars[i].Name)
		}
	}
	// A new migration's dependents are the migrations after it, which are history: not checked.
	req.Check = slices.DeleteFunc(repository.Affected(req.Sidecars, names), func(n string) bool {
		return migrations[n] && !slices.Contains(names, n)
	})
	if req.Check == nil {
		req.Check = []string{}
	}
	req.Nothing = fmt.Sprintf("nothing to check: no sidecar's file changed since %s (the merge base of HEAD and %s)", ch.short, f.changed)
	g.logf("check: --changed %s: merge base %s; %s changed (%s), %d checked with those that need them", f.changed, ch.short, nouns.Count(len(names), "sidecar"), strings.Join(names, ", "), len(req.Check))
	return req, nil
}

// sidecarsOf are the sidecars of cfg (one for a configuration of version 1 or 2), each with
// its gate request for command, o applied to its configuration.
func sidecarsOf(cfg *config.Config, g *globals, sf *serverFlags, command string, steps gate.Steps, o config.Overrides) ([]repository.Sidecar, error) {
	var out []repository.Sidecar
	for _, s := range cfg.Repository() {
		sc := s.Config
		if err := sc.Override(o); err != nil {
			return nil, err
		}
		r, err := gateRequest(sc, g, sf, command, steps)
		if err != nil {
			return nil, fmt.Errorf("sidecar %s: %w", s.Name, err)
		}
		out = append(out, repository.Sidecar{Name: s.Name, Needs: s.Needs, Request: r})
	}
	return out, nil
}

// changes are the files a branch changed: those that differ between the merge base of HEAD and
// a ref and the work tree (untracked files included), and their content at the merge base.
type changes struct {
	repo             *gitRepo
	top, base, short string
	files            map[string]bool // absolute paths
}

// gitChanges reads what changed in the repository holding dir since the merge base of HEAD and
// ref (see [gitRepo]: the repository is found by ledgercheck, and git runs no program).
func gitChanges(ctx context.Context, scope input.Scope, dir, ref string) (*changes, error) {
	repo, err := findGitRepo(scope, dir, ref)
	if err != nil {
		return nil, err
	}
	if err := repo.drivers(ctx); err != nil {
		return nil, err
	}
	ch := &changes{repo: repo, top: repo.top, files: map[string]bool{}}
	base, err := repo.run(ctx, "merge-base", "--end-of-options", "HEAD", ref)
	if err != nil {
		return nil, fault.Input(fmt.Errorf("--changed %s: no merge base of HEAD and %s: %w", ref, ref, err))
	}
	ch.base = strings.TrimSpace(base)
	ch.short = ch.base[:min(len(ch.base), 12)]
	diff, err := repo.run(ctx, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--ignore-submodules=all", ch.base, "--")
	if err != nil {
		return nil, fault.Env(fmt.Errorf("--changed %s: git diff: %w", ref, err))
	}
	untracked, err := repo.run(ctx, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, fault.Env(fmt.Errorf("--changed %s: git ls-files: %w", ref, err))
	}
	for _, p := range strings.Split(diff+untracked, "\x00") {
		if p != "" {
			ch.files[filepath.Join(ch.top, p)] = true
		}
	}
	return ch, nil
}

// apply reports whether the file of r's artifact or of one of its ports changed, and gives each
// changed variant its version at the merge base as its previous version (a file the merge base
// does not have has no upgrade audit).
func (ch *changes) apply(ctx context.Context, r *gate.Request) bool {
	changed := false
	for _, v := range append([]*gate.Variant{&r.Artifact}, portsOf(r)...) {
		if !ch.changed(v.File) {
			continue
		}
		changed = true
		rel, src, err := ch.atBase(ctx, v.File)
		switch {
		case rel == "":
			continue
		case err != nil:
			v.Previous, v.NoPrevious = nil, fmt.Sprintf("%s is new since %s (the merge base), so there is no upgrade to check", v.File, ch.short)
			continue
		case len(src) > int(input.Migration.Limit):
			v.Previous, v.NoPrevious = nil, fmt.Sprintf("%s at %s (the merge base) is larger than a migration may be, so its upgrade is not checked", v.File, ch.short)
			continue
		}
		v.Previous = &gate.SQLFile{Name: ch.short + ":" + rel, Src: []byte(src)}
	}
	return changed
}

// atBase reads the file at path (as the configuration names it) as the merge base has it: rel
// is its path in the repository ("" when it lies outside it), err the error of a file the merge
// base does not have. git runs as [gitRepo.run] says: no program the repository chooses.
func (ch *changes) atBase(ctx context.Context, path string) (rel, src string, err error) {
	r, err := filepath.Rel(ch.top, realPath(path))
	if err != nil {
		return "", "", err
	}
	rel = filepath.ToSlash(r)
	src, err = ch.repo.run(ctx, "cat-file", "blob", ch.base+":"+rel)
	return rel, src, err
}

// changed reports whether the file at path (as the configuration names it) changed.
func (ch *changes) changed(path string) bool {
	return path != "" && ch.files[realPath(path)]
}

// realPath is path made absolute with every symbolic link on it followed (git names files under
// the real top level); a path that does not resolve is only made absolute.
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	// A deleted file: its directory may still resolve.
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs))
	}
	return abs
}

// inputs reports whether one of the files a sidecar's check reads besides its migrations changed:
// its prerequisite files, fixture or ports' allowlists. Such a sidecar is checked again, with no
// upgrade audit (its migrations did not change).
func (ch *changes) inputs(c *config.Config) bool {
	files := append([]string{c.Fixture}, c.Prerequisites.Files...)
	for _, p := range c.Ports {
		files = append(files, p.Allowlist)
	}
	for _, f := range files {
		if ch.changed(f) {
			return true
		}
	}
	return false
}

// portsOf points at r's ports' variants.
func portsOf(r *gate.Request) []*gate.Variant {
	var vs []*gate.Variant
	for i := range r.Ports {
		vs = append(vs, &r.Ports[i].Variant)
	}
	return vs
}

// runRepository checks the repository cfg describes (every sidecar, or with --changed those a
// branch changed and those that need them) and renders the report.
func (f *checkFlags) runRepository(cmd *cobra.Command, g *globals, cfg *config.Config) error {
	req, err := f.repositoryRequest(cmd, g, cfg)
	if err != nil {
		return err
	}
	rep, err := repository.Run(cmd.Context(), req)
	if err != nil {
		return err
	}
	return f.out.render(g, rep)
}
