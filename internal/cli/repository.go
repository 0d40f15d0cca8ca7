package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
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
var checkSteps = gate.Steps{Lint: true, CrossCheck: true, Audit: true, Parity: true, Rerun: true}

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
	o := config.Overrides{Fixture: f.fixture, Times: changed(cmd.Flags(), "times", &f.times)}
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
	ch, err := gitChanges(cmd.Context(), filepath.Dir(cfg.Path), f.changed)
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
	top, base, short string
	files            map[string]bool // absolute paths
}

// gitChanges reads what changed in the repository of dir since the merge base of HEAD and ref.
func gitChanges(ctx context.Context, dir, ref string) (*changes, error) {
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fault.Input(fmt.Errorf("--changed %s: %s is not in a git repository: %w", ref, dir, err))
	}
	ch := &changes{top: strings.TrimSpace(top), files: map[string]bool{}}
	base, err := git(ctx, dir, "merge-base", "HEAD", ref)
	if err != nil {
		return nil, fault.Input(fmt.Errorf("--changed %s: no merge base of HEAD and %s: %w", ref, ref, err))
	}
	ch.base = strings.TrimSpace(base)
	ch.short = ch.base[:min(len(ch.base), 12)]
	diff, err := git(ctx, ch.top, "diff", "--name-only", "-z", "--no-renames", ch.base, "--")
	if err != nil {
		return nil, fault.Env(fmt.Errorf("--changed %s: git diff: %w", ref, err))
	}
	untracked, err := git(ctx, ch.top, "ls-files", "--others", "--exclude-standard", "-z")
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
		abs, _ := filepath.Abs(v.File)
		rel, err := filepath.Rel(ch.top, abs)
		if err != nil {
			continue
		}
		src, err := git(ctx, ch.top, "show", ch.base+":"+filepath.ToSlash(rel))
		switch {
		case err != nil:
			v.Previous, v.NoPrevious = nil, fmt.Sprintf("%s is new since %s (the merge base), so there is no upgrade to check", v.File, ch.short)
			continue
		case len(src) > int(input.Migration.Limit):
			v.Previous, v.NoPrevious = nil, fmt.Sprintf("%s at %s (the merge base) is larger than a migration may be, so its upgrade is not checked", v.File, ch.short)
			continue
		}
		v.Previous = &gate.Script{Name: ch.short + ":" + filepath.ToSlash(rel), Src: []byte(src)}
	}
	return changed
}

// changed reports whether the file at path (as the configuration names it) changed.
func (ch *changes) changed(path string) bool {
	abs, err := filepath.Abs(path)
	return path != "" && err == nil && ch.files[abs]
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

// git runs git in dir and returns its standard output; the error carries its last line of
// standard error.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if msg := lines[len(lines)-1]; msg != "" {
			return "", errors.New(msg)
		}
		return "", err
	}
	return out.String(), nil
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
