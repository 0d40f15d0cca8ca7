package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ledgercheck/ledgercheck/internal/didyoumean"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/lint"
)

// RepositoryVersion is the configuration version of a repository of sidecars: a list of
// sidecars (sidecars:), each with the keys a file of version 2 has, the top-level keys their
// defaults.
const RepositoryVersion = 3

// Sidecar is one sidecar of a repository: its name, the sidecars it needs (installed before it,
// in dependency order), and its configuration as a file of version 2 says it (its artifact,
// ports, prerequisites, fixture, probes, lint policy), the repository's top-level keys filled in
// where it has none of its own.
type Sidecar struct {
	// Name names the sidecar in the report; unique.
	Name string
	// Needs are the names of the sidecars it needs directly, as written.
	Needs []string
	// Config is its configuration: Artifact is its file, at its dimension.
	Config *Config
	// Migration marks a migration of a Supabase project's migrations directory (an entry
	// `migrations: DIR`): it needs the migration before it, and `check --changed` checks the
	// migrations a branch adds, over the others as the merge base has them.
	Migration bool
}

// configV3 is a configuration of version 3.
type configV3 struct {
	Version       int           `yaml:"version"`
	Sidecars      []sidecarV3   `yaml:"sidecars"`
	Prerequisites Prerequisites `yaml:"prerequisites"`
	Shared        `yaml:",inline"`
}

// sidecarV3 is an entry of sidecars: one sidecar, or a glob that adds one per matching file.
type sidecarV3 struct {
	Name          string   `yaml:"name"`
	Glob          string   `yaml:"glob"`
	Migrations    string   `yaml:"migrations"`
	Needs         []string `yaml:"needs"`
	Variant       `yaml:",inline"`
	Ports         []Port        `yaml:"ports"`
	Prerequisites Prerequisites `yaml:"prerequisites"`
	Fixture       string        `yaml:"fixture"`
	Probes        []Probe       `yaml:"probes"`
	Rerun         Rerun         `yaml:"rerun"`
	Lint          lint.Config   `yaml:"lint"`
}

// Repository returns the configuration's sidecars in dependency order: those of a file of
// version 3, or the one sidecar a file of version 2 describes (named after its artifact's
// file, needing none).
func (c *Config) Repository() []Sidecar {
	if c.Version == RepositoryVersion {
		return c.Sidecars
	}
	return []Sidecar{{Name: NameOf(c.Artifact.File), Config: c}}
}

// decodeV3 decodes data, a configuration of version 3 whose parse is doc, strictly into c (the
// top-level keys) and c.Sidecars, expanding globs against dir (the file's directory) and
// ordering the sidecars so that each comes after those it needs.
func (c *Config) decodeV3(data []byte, doc *yaml.Node, dir string) error {
	v3 := configV3{Prerequisites: Prerequisites{OpenBrain: true}}
	if err := decodeKnown(data, doc, &v3); err != nil {
		return c.yamlError(data, err)
	}
	c.Version, c.Shared, c.Prerequisites = RepositoryVersion, v3.Shared, v3.Prerequisites
	if len(v3.Sidecars) == 0 {
		return c.errAt(c.Line("sidecars"), "sidecars: none listed; add one ({name: NAME, file: FILE, dim: N}) or a glob ({glob: \"schemas/*/schema.sql\", dim: N})")
	}
	named := map[string]bool{} // the files the entries without a glob name, resolved
	for _, s := range v3.Sidecars {
		if s.Glob == "" && s.File != "" {
			named[filepath.Join(dir, s.File)] = true
		}
	}
	for i, s := range v3.Sidecars {
		at := "sidecars." + strconv.Itoa(i)
		if s.Migrations != "" {
			if err := c.migrations(i, s, dir); err != nil {
				return err
			}
			continue
		}
		if s.Glob == "" {
			c.Sidecars = append(c.Sidecars, Sidecar{Name: s.Name, Needs: s.Needs, Config: c.sidecarConfig(i, s)})
			continue
		}
		if s.Name != "" || s.File != "" {
			return c.errAt(c.Line(at+".glob"), "sidecar %d: a glob entry takes neither name nor file: each file it matches is a sidecar named after its directory", i+1)
		}
		files, err := filepath.Glob(filepath.Join(dir, s.Glob))
		if err != nil {
			return c.errAt(c.Line(at+".glob"), "glob %q: %v", s.Glob, err)
		}
		if len(files) == 0 {
			return c.errAt(c.Line(at+".glob"), "glob %q matches no file", s.Glob)
		}
		for _, f := range files {
			if named[f] {
				continue // another entry says more about this one
			}
			rel, err := filepath.Rel(dir, f)
			if err != nil {
				rel = f
			}
			g := s
			g.File, g.Name = rel, SidecarName(f)
			c.Sidecars = append(c.Sidecars, Sidecar{Name: g.Name, Needs: s.Needs, Config: c.sidecarConfig(i, g)})
		}
	}
	return nil
}

// migrations adds the sidecars of entry i, s, a Supabase project's migrations directory
// (s.Migrations, relative to dir): each of its .sql files, in name order, a sidecar named after
// its file's stem that needs the one before it (the first, what the entry's needs name).
func (c *Config) migrations(i int, s sidecarV3, dir string) error {
	at := "sidecars." + strconv.Itoa(i)
	if s.Name != "" || s.File != "" || s.Glob != "" {
		return c.errAt(c.Line(at+".migrations"), "sidecar %d: a migrations entry takes neither name, file nor glob: each migration of the directory is a sidecar named after its file", i+1)
	}
	files, err := filepath.Glob(filepath.Join(dir, s.Migrations, "*.sql"))
	if err != nil || len(files) == 0 {
		return c.errAt(c.Line(at+".migrations"), "migrations %q holds no .sql file", s.Migrations)
	}
	slices.Sort(files)
	needs := s.Needs
	for _, f := range files {
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			rel = f
		}
		g := s
		g.File, g.Name = rel, MigrationName(f)
		c.Sidecars = append(c.Sidecars, Sidecar{Name: g.Name, Needs: needs, Config: c.sidecarConfig(i, g), Migration: true})
		needs = []string{g.Name}
	}
	return nil
}

// MigrationName is the name of the sidecar a migration file is: its stem
// (20240101120000_create_profiles), with every run of characters a name may not have replaced by
// '-'.
func MigrationName(file string) string {
	stem := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	if name := strings.Trim(notInName().ReplaceAllString(stem, "-"), "-._"); name != "" {
		return name
	}
	return "migration"
}

// sidecarConfig is the configuration of the sidecar s, entry i of sidecars: its own keys, the
// top-level keys of c where it has none. Its keys (for lines and messages) are the entry's.
func (c *Config) sidecarConfig(i int, s sidecarV3) *Config {
	at := "sidecars." + strconv.Itoa(i)
	sc := &Config{Version: RepositoryVersion, Artifact: s.Variant, Ports: s.Ports, Prerequisites: c.Prerequisites, Shared: c.Shared,
		Path: c.Path, lines: c.lines, cols: c.cols, nlines: c.nlines, sidecar: s.Name,
		keys: map[string]string{"artifact": at, "ports": at + ".ports"}}
	sc.Prerequisites.Files = slices.Clone(c.Prerequisites.Files)
	has := func(key string) bool { _, ok := c.lines[at+"."+key]; return ok }
	for _, k := range []string{"prerequisites", "fixture", "probes", "rerun", "lint"} {
		if has(k) {
			sc.keys[k] = at + "." + k
		}
	}
	if has("prerequisites.openbrain") {
		sc.Prerequisites.OpenBrain = s.Prerequisites.OpenBrain
	}
	if has("prerequisites.files") {
		sc.Prerequisites.Files = s.Prerequisites.Files
	}
	if has("fixture") {
		sc.Fixture = s.Fixture
	}
	if has("probes") {
		sc.Probes = s.Probes
	}
	if has("rerun") {
		sc.Rerun = s.Rerun
	}
	if has("lint") {
		sc.Lint, sc.LintSet = s.Lint, true
	}
	return sc
}

// finishSidecars completes the sidecars of a file of version 3 once its top-level keys have
// their defaults: each sidecar's defaults and validation, its paths resolved against dir, its
// needs checked (every name known, no cycle) and the list put in dependency order.
func (c *Config) finishSidecars(dir string) error {
	index := map[string]int{}
	for i := range c.Sidecars {
		s := &c.Sidecars[i]
		sc := s.Config
		if !sc.LintSet {
			sc.Lint, sc.LintSet = c.Lint, c.LintSet
		}
		sc.applyDefaults()
		at := sc.Key("artifact")
		switch {
		case s.Name == "":
			return c.errAt(c.Line(at), "sidecar %d has no name: give it one (it names the sidecar's phases)", i+1)
		case !portName().MatchString(s.Name):
			return c.errAt(c.Line(at+".name"), "sidecar %q: use letters, digits, '.', '_' and '-' in its name (it names the sidecar's phases)", s.Name)
		case sc.Artifact.File == "":
			return c.errAt(c.Line(at), "sidecar %q has no file: name its migration", s.Name)
		}
		if prev, ok := index[s.Name]; ok {
			return c.errAt(c.Line(at), "sidecars %d and %d are both named %q; give each a name of its own", prev+1, i+1, s.Name)
		}
		index[s.Name] = i
		if err := sc.validate(); err != nil {
			return err
		}
		for _, p := range sc.paths() {
			if *p.path != "" && !filepath.IsAbs(*p.path) {
				*p.path = filepath.Join(dir, *p.path)
			}
		}
	}
	order, err := c.dependencyOrder(index)
	if err != nil {
		return err
	}
	sorted := make([]Sidecar, len(order))
	for k, i := range order {
		sorted[k] = c.Sidecars[i]
	}
	c.Sidecars = sorted
	return nil
}

// dependencyOrder returns the indexes of c.Sidecars in an order where every sidecar comes after
// those it needs, and otherwise as the file lists them. An unknown name, a sidecar that needs
// itself and a cycle are errors at the needs item that names it.
func (c *Config) dependencyOrder(index map[string]int) ([]int, error) {
	const (
		unvisited = iota
		visiting
		done
	)
	state := make([]int, len(c.Sidecars))
	var order []int
	var path []string
	var visit func(i int) error
	visit = func(i int) error {
		s := c.Sidecars[i]
		state[i] = visiting
		path = append(path, s.Name)
		for k, name := range s.Needs {
			at := s.Config.Key("artifact") + ".needs." + strconv.Itoa(k)
			j, ok := index[name]
			switch {
			case !ok:
				names := slices.Sorted(maps.Keys(index))
				return c.errAtCol(at, "sidecar %q needs %q, which is not a sidecar of this file%s (its sidecars: %s)", s.Name, name, didyoumean.Hint(name, names), strings.Join(names, ", "))
			case state[j] == visiting:
				cycle := append(slices.Clone(path[slices.Index(path, name):]), name)
				return c.errAtCol(at, "sidecar %q needs %q: a cycle (%s); a sidecar cannot be installed before itself", s.Name, name, strings.Join(cycle, " -> "))
			case state[j] == unvisited:
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = done
		order = append(order, i)
		return nil
	}
	for i := range c.Sidecars {
		if state[i] == unvisited {
			if err := visit(i); err != nil {
				return nil, err
			}
		}
	}
	return order, nil
}

// errAtCol is an error at the line and column of the key at the dotted path (as the file writes
// it): "path:line:col: message"; "path:line: message" when the key has no column.
func (c *Config) errAtCol(key string, format string, args ...any) error {
	col := c.cols[key]
	if col == 0 {
		return c.errAt(c.Line(key), format, args...)
	}
	return fault.Input(fmt.Errorf("%s:%d:%d: %s", c.Path, c.Line(key), col, fmt.Sprintf(format, args...)))
}

// SidecarName is the name of the sidecar a glob matched at file: its directory's base name, with
// every run of characters a name may not have replaced by '-' ("sidecar" if nothing is left).
func SidecarName(file string) string {
	if name := strings.Trim(notInName().ReplaceAllString(filepath.Base(filepath.Dir(file)), "-"), "-._"); name != "" {
		return name
	}
	return "sidecar"
}

// Sidecar returns the configuration of the sidecar named name, standing alone as a file of
// version 2 would: its prerequisite files are, in dependency order, those of each sidecar it
// needs (directly or not) followed by that sidecar's file, then its own; each file once. For
// commands that act on one sidecar's variants (parity, allowlist suggest).
func (c *Config) Sidecar(name string) (*Config, error) {
	var names []string
	byName := map[string]Sidecar{}
	for _, s := range c.Sidecars {
		names = append(names, s.Name)
		byName[s.Name] = s
	}
	s, ok := byName[name]
	if !ok {
		return nil, fault.Input(fmt.Errorf("--sidecar %s: %s has no sidecar of that name%s (its sidecars: %s)", name, c.Path, didyoumean.Hint(name, names), strings.Join(names, ", ")))
	}
	needed := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		for _, m := range byName[n].Needs {
			if !needed[m] {
				needed[m] = true
				walk(m)
			}
		}
	}
	walk(name)
	var files []string
	add := func(f string) {
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	for _, n := range c.Sidecars { // dependency order
		if needed[n.Name] {
			for _, f := range n.Config.Prerequisites.Files {
				add(f)
			}
			add(n.Config.Artifact.File)
		}
	}
	for _, f := range s.Config.Prerequisites.Files {
		add(f)
	}
	one := *s.Config
	one.Version, one.Prerequisites.Files = Version, files
	return &one, nil
}

// SidecarName is the name of the sidecar a configuration is, for one of a file of version 3,
// else "".
func (c *Config) SidecarName() string { return c.sidecar }
