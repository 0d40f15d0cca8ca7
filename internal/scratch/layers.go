package scratch

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// A template's layers are what it holds beyond the environment and the Open Brain
// prerequisites: for a sidecar, the files of the sidecars it needs, in dependency order. A
// repository of sidecars uses one template per distinct set of needs, and in a chain (each
// sidecar needing the one before) every template holds the layers of the one before plus one:
// built from template0, the chain's templates would run N²/2 files; built as copies of their
// parents (CREATE DATABASE ... TEMPLATE parent, then the layers the parent lacks), N. A long
// chain's templates would not all fit in the scratch directory either (a template is about
// 9 MB): a run that says which templates it will use ([Server.Expect]) gets each dropped once
// its last use is given back ([Server.Release]) and every template built from it is built.

// Layer is one step of a [Base]: a file run in each new template, after the prerequisites.
type Layer struct {
	// Key identifies the layers up to and including this one, together (a digest of their
	// files): the template of a Base whose last layer this is is known by it, so it must change
	// whenever any of those layers' SQL does.
	Key string
	// Run runs the layer in the template (db.Dim is its dimension), as the install role. Its
	// error is returned, unchanged, by every [Server.NewDatabaseFrom] for a template that holds
	// the layer.
	Run func(ctx context.Context, db *Database) error
}

// maxCachedTemplates bounds the templates one cache entry holds (about 9 MB each, copied into
// every run's cluster): a run that uses more caches those without layers and the deepest of the
// others (cachedSpecs), and builds the rest in the run, each from its parent.
const maxCachedTemplates = 40

// cachedSpecs are the templates of specs a cache entry holds: all of them, or, when they are
// more than [maxCachedTemplates], those without layers and, up to the bound, those with the most
// layers (the others are built in the run, each from the longest of them its layers extend: a
// check of the last sidecars of a chain then copies their templates, and the rest builds on the
// cached ones).
func cachedSpecs(specs []TemplateSpec) []TemplateSpec {
	keys := specKeys(specs)
	if len(keys) <= maxCachedTemplates {
		return specs
	}
	depth := map[templateKey]int{}
	for _, sp := range specs {
		depth[keyOfBase(sp.Dim, sp.Base)] = len(sp.Base.Layers)
	}
	slices.SortStableFunc(keys, func(a, b templateKey) int {
		if (depth[a] == 0) != (depth[b] == 0) { // those without layers first
			if depth[a] == 0 {
				return -1
			}
			return 1
		}
		return depth[b] - depth[a]
	})
	keep := map[templateKey]bool{}
	for _, k := range keys[:maxCachedTemplates] {
		keep[k] = true
	}
	return slices.DeleteFunc(slices.Clone(specs), func(sp TemplateSpec) bool { return !keep[keyOfBase(sp.Dim, sp.Base)] })
}

// templUses is what the server knows of the templates a run will use: the templates known as
// parents (those cached or built before Start returned, and those expected), and, for the
// expected ones, how many uses are still to be given back and which template each is built
// from. Guarded by Server.mu.
type templUses struct {
	known  map[templateKey]Base
	refs   map[templateKey]int         // expected uses, plus expected templates built from it and not built yet
	parent map[templateKey]templateKey // an expected template -> the known template it is built from
}

// know records bases, at their dimensions, as templates the run uses: a template whose layers
// begin with all of one of theirs is built from it.
func (u *templUses) know(specs []TemplateSpec) {
	if u.known == nil {
		u.known = map[templateKey]Base{}
	}
	for _, sp := range specs {
		u.known[keyOfBase(sp.Dim, sp.Base)] = sp.Base
	}
}

// parentKey is the known template that a template of dim and base is built from: the one whose
// layers are the longest proper prefix of base's (same dimension, Open Brain prerequisites and
// privilege model, no Prepare); false when there is none.
func (u *templUses) parentKey(dim int, base Base) (templateKey, Base, bool) {
	for n := len(base.Layers) - 1; n > 0; n-- {
		p := Base{NoOpenBrain: base.NoOpenBrain, Privileges: base.Privileges, Layers: base.Layers[:n], Describe: base.Describe}
		k := keyOfBase(dim, p)
		if known, ok := u.known[k]; ok && known.Prepare == nil {
			return k, p, true
		}
	}
	return templateKey{}, Base{}, false
}

// Expect declares the uses the run will make of templates with layers that are not there yet
// (neither cached nor built), each spec one use (a sidecar that copies its databases from it),
// to be given back with [Server.Release]. Every template it
// names is known from then on: the parent of any whose layers extend its own. A template with
// expected uses is dropped once they are all given back and every expected template built from
// it is built, so that a long chain holds a few templates at a time. Call it once, before the
// uses start.
func (s *Server) Expect(uses []TemplateSpec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := &s.uses
	u.know(uses)
	if u.refs == nil {
		u.refs, u.parent = map[templateKey]int{}, map[templateKey]templateKey{}
	}
	seen := map[templateKey]bool{}
	for _, sp := range uses {
		k := keyOfBase(sp.Dim, sp.Base)
		if len(sp.Base.Layers) == 0 || s.templates[k] != nil {
			// A template without layers stays for the run (every other grows from it), and so
			// does one cached or built already (the cluster held it from the start).
			continue
		}
		u.refs[k]++
		if seen[k] {
			continue
		}
		seen[k] = true
		if p, _, ok := u.parentKey(sp.Dim, sp.Base); ok && s.templates[p] == nil {
			u.parent[k] = p
			u.refs[p]++
		}
	}
}

// Release gives back one use of spec's template that [Server.Expect] declared; once none is
// left, and every expected template built from it is built, the template is dropped (a later
// use builds it again).
func (s *Server) Release(ctx context.Context, spec TemplateSpec) error {
	return s.unref(ctx, keyOfBase(spec.Dim, spec.Base))
}

// built is called once the template k is built (or failed to build): the hold it had on its
// parent is given back.
func (s *Server) built(k templateKey) {
	s.mu.Lock()
	p, ok := s.uses.parent[k]
	delete(s.uses.parent, k)
	s.mu.Unlock()
	if ok {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.unref(ctx, p); err != nil {
			fmt.Fprintf(s.opts.Log, "scratch: %v\n", err)
		}
	}
}

// unref gives back one hold on the expected template k, and drops it when none is left.
func (s *Server) unref(ctx context.Context, k templateKey) error {
	s.mu.Lock()
	n, ok := s.uses.refs[k]
	if !ok {
		s.mu.Unlock()
		return nil // not expected: kept for the run
	}
	if n > 1 {
		s.uses.refs[k] = n - 1
		s.mu.Unlock()
		return nil
	}
	delete(s.uses.refs, k)
	t := s.templates[k]
	delete(s.templates, k)
	s.mu.Unlock()
	if t == nil {
		return nil
	}
	t.once.Do(func() {}) // a template never built has nothing to drop
	if t.name == "" {
		return nil
	}
	if err := s.drop(ctx, t.name); err != nil {
		return fmt.Errorf("dropping a template no longer used: %w", err)
	}
	return nil
}

// parentOf returns the template a new template of dim and base is a copy of ("" for template0,
// when no known template holds a prefix of its layers, or that template has settings of its
// own), building it first if need be, and the layers the copy lacks.
func (s *Server) parentOf(ctx context.Context, dim int, base Base) (string, []Layer, error) {
	s.mu.Lock()
	_, pb, ok := s.uses.parentKey(dim, base)
	s.mu.Unlock()
	if !ok {
		return "", base.Layers, nil
	}
	name, err := s.template(ctx, dim, pb)
	if err != nil {
		return "", nil, err
	}
	s.mu.Lock()
	t := s.templates[keyOfBase(dim, pb)]
	own := t == nil || t.ownSettings || t.name != name
	s.mu.Unlock()
	if own {
		return "", base.Layers, nil
	}
	return name, base.Layers[len(pb.Layers):], nil
}

// LayersRun returns how many layers the builds of the run's templates have run so far (a
// template copied from the cache ran none in this run): a chain of N templates built from each
// other runs N, for tests and benchmarks to bound the work.
func (s *Server) LayersRun() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.layersRun
}

// SameTemplate reports whether a and b name the same template: one database serves both.
func SameTemplate(a, b TemplateSpec) bool {
	return keyOfBase(a.Dim, a.Base) == keyOfBase(b.Dim, b.Base)
}
