package repository

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// A repository comes in two shapes, often together: Open Brain's, where every SQL file under
// schemas/, recipes/, extensions/ (one or several per directory) is a sidecar of its own that
// may need others; and a Supabase project's, whose supabase/migrations/<timestamp>_<name>.sql
// are applied in order, each building on the ones before. Discover reads a repository as it is
// and says what each SQL file is, for `ledgercheck init`.

// Kind is what a SQL file of a repository is.
type Kind int

// The kinds of SQL file. A sidecar and a migration are checked; the others are left out of the
// configuration, with a comment that says why.
const (
	// SidecarFile is a sidecar: a migration of its own, installed over the sidecars it needs.
	SidecarFile Kind = iota
	// Migration is a file of a Supabase project's migrations directory: installed over the
	// migrations before it (config's `migrations:` entry).
	Migration
	// BaseSchema defines the prerequisites themselves (the base-schema finding's shape), which
	// every scratch database holds already.
	BaseSchema
	// Seed holds data only: rows for existing tables, no object of its own.
	Seed
	// Test is a test (pgTAP, or a file under a tests directory), not a migration.
	Test
)

// Found is one SQL file of a repository.
type Found struct {
	// Path is the file's path relative to the repository's root, with forward slashes.
	Path string
	Kind Kind
	// Name is a sidecar's or a migration's name: a sidecar is named after its directory, plus
	// the file's stem where the directory holds more than one sidecar, parent directories
	// added where two would share a name; a migration after its file's stem.
	Name string
	// Dim is a sidecar's vector dimension: the one its vector types say, else the default.
	Dim int
	// Needs are a sidecar's needs (see needs.go).
	Needs []Need
	// Why says why a file that is not checked is left out.
	Why string
}

// Layout is a repository as Discover read it.
type Layout struct {
	// Files are the SQL files, in path order: the sidecars, the migrations and those left out.
	Files []Found
	// Migrations is the Supabase migrations directory, relative to the root ("" when none).
	Migrations string
	// Dropped are the needs left out to break cycles (see [Acyclic]).
	Dropped []Dropped
}

// Discover reads the SQL files of a repository for `ledgercheck init`.
type Discover struct {
	// Root is the repository's root.
	Root string
	// Globs narrow the files (relative to Root; `**` matches any number of directories); none
	// takes every .sql file.
	Globs []string
	// Dim is the dimension of a sidecar whose file does not say one.
	Dim int
	// Policy is the lint policy the sidecars are checked with: what it lists as existing is
	// what a base schema defines, and what no sidecar needs.
	Policy lint.Config
	// Read reads a file (its path joined to Root), through the repository's confinement.
	Read func(path string) ([]byte, error)
}

// migrationsDir matches a Supabase project's migrations directory.
var migrationsDir = regexp.MustCompile(`(^|/)supabase/migrations$`)

// Run finds the SQL files under Root (hidden directories and node_modules skipped), those the
// globs match, and reads each: what it is, its name, its dimension and, for a sidecar, its
// needs.
func (d Discover) Run() (*Layout, error) {
	paths, err := d.files()
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		what := "no .sql file under " + d.Root
		if len(d.Globs) > 0 {
			what = "no .sql file matches " + strings.Join(d.Globs, ", ")
		}
		return nil, errors.New(what)
	}
	lay := &Layout{}
	var sidecars []NeedsOf
	var at []int
	for _, p := range paths {
		src, err := d.Read(filepath.Join(d.Root, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		parsed, uses, _ := pgsql.ParseUses(p, src) // a file that does not parse is a sidecar whose install says so
		f := Found{Path: p, Dim: d.Dim}
		f.Kind, f.Why = d.classify(p, parsed)
		if f.Kind == Migration {
			lay.Migrations = path.Dir(p)
			f.Name = strings.TrimSuffix(path.Base(p), path.Ext(p))
		}
		if f.Kind == SidecarFile {
			f.Dim = dimOf(parsed, d.Dim)
			at = append(at, len(lay.Files))
			sidecars = append(sidecars, NeedsOf{File: parsed, Uses: uses})
		}
		lay.Files = append(lay.Files, f)
	}
	names := sidecarNames(lay.Files)
	for k, i := range at {
		lay.Files[i].Name = names[i]
		sidecars[k].Sidecar = names[i]
	}
	needs := FindNeeds(sidecars, d.Policy)
	order := make([]string, len(sidecars))
	for k := range sidecars {
		order[k] = sidecars[k].Sidecar
	}
	lay.Dropped = Acyclic(order, needs)
	for k, i := range at {
		lay.Files[i].Needs = needs[k]
	}
	return lay, nil
}

// files are the .sql files under Root that the globs match, relative and slash-separated, in
// order.
func (d Discover) files() ([]string, error) {
	all, err := SQLFiles(d.Root, "node_modules")
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", d.Root, err)
	}
	var out []string
	for _, p := range all {
		rel, err := filepath.Rel(d.Root, p)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		if len(d.Globs) == 0 || slices.ContainsFunc(d.Globs, func(g string) bool { return MatchGlob(g, rel) }) {
			out = append(out, rel)
		}
	}
	return out, nil
}

// SQLFiles lists the .sql files under dir (regular files, any case of the extension), sorted,
// skipping hidden directories and those named skip.
func SQLFiles(dir string, skip ...string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case e.IsDir() && p != dir && (strings.HasPrefix(e.Name(), ".") || slices.Contains(skip, e.Name())):
			return fs.SkipDir
		case !e.IsDir() && strings.EqualFold(filepath.Ext(p), ".sql"):
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	return files, err
}

// MatchGlob reports whether the slash-separated path p matches pattern: path.Match for each
// segment, where a segment `**` matches any number of segments (none included). A malformed
// pattern matches nothing.
func MatchGlob(pattern, p string) bool {
	return matchSegments(strings.Split(strings.Trim(pattern, "/"), "/"), strings.Split(p, "/"))
}

func matchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchSegments(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// pgTAP's plan() and finish() start and end a test file.
var pgTAP = regexp.MustCompile(`(?i)\bselect\s+(\*\s+from\s+)?(no_)?plan\s*\(|\bfinish\s*\(\s*\)`)

// classify says what the file at p (parsed: nil when it does not parse) is, and why a file that
// is not checked is left out.
func (d Discover) classify(p string, parsed *pgsql.File) (Kind, string) {
	dir, base := path.Dir(p), strings.ToLower(path.Base(p))
	stem := strings.TrimSuffix(base, path.Ext(base))
	for _, seg := range strings.Split(dir, "/") {
		if seg == "test" || seg == "tests" || seg == "__tests__" {
			return Test, "a test (under " + seg + "/), not a migration"
		}
	}
	if strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || strings.HasSuffix(stem, ".test") {
		return Test, "a test (by its name), not a migration"
	}
	if parsed != nil && pgTAP.MatchString(parsed.Src) {
		return Test, "a pgTAP test (plan() and finish()), not a migration"
	}
	if migrationsDir.MatchString(dir) {
		return Migration, ""
	}
	if parsed == nil {
		return SidecarFile, ""
	}
	if objs := lint.DefinesPrerequisites(parsed, d.Policy); len(objs) > 0 {
		var names []string
		for _, o := range objs[:min(3, len(objs))] {
			names = append(names, o.Name.String()+o.ArgList())
		}
		if len(objs) > 3 {
			names = append(names, "...")
		}
		return BaseSchema, fmt.Sprintf("a base schema (defines %s): every scratch database holds the Open Brain prerequisites already (prerequisites.openbrain)", strings.Join(names, ", "))
	}
	if isSeed(parsed) {
		return Seed, "seed data (rows only, no object of its own): a sidecar's rows for the audits go under its fixture: key"
	}
	return SidecarFile, ""
}

// isSeed reports whether f only writes rows: INSERT, COPY, UPDATE or DELETE at top level (and
// transaction or session statements), at least one of them.
func isSeed(f *pgsql.File) bool {
	rows := false
	for i := range f.Ops {
		op := &f.Ops[i]
		if op.Context != pgsql.TopLevel {
			continue
		}
		switch op.Verb {
		case pgsql.VerbInsert, pgsql.VerbCopy, pgsql.VerbUpdate, pgsql.VerbDelete:
			rows = true
		case pgsql.VerbBegin, pgsql.VerbCommit, pgsql.VerbSet, pgsql.VerbSelect, pgsql.VerbNotify:
		default:
			return false
		}
	}
	return rows
}

// dimOf is the dimension f's vector types say, when they all say the same; else def.
func dimOf(f *pgsql.File, def int) int {
	if f == nil || len(f.VectorTypes) == 0 {
		return def
	}
	d := f.VectorTypes[0].Dim
	for _, v := range f.VectorTypes {
		if v.Dim != d {
			return def
		}
	}
	return d
}

// notInName are the characters a sidecar's name may not have.
var notInName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// cleanName is s with every run of characters a name may not have replaced by '-'.
func cleanName(s string) string {
	return strings.Trim(notInName.ReplaceAllString(s, "-"), "-._")
}

// sidecarNames names the sidecars of files (by index; other files get ""): after the file's
// directory, plus its stem where the directory holds more than one sidecar; where two names
// still collide, each gets its parent directories before it until they differ (the path in
// full, at worst).
func sidecarNames(files []Found) map[int]string {
	perDir := map[string]int{}
	for _, f := range files {
		if f.Kind == SidecarFile {
			perDir[path.Dir(f.Path)]++
		}
	}
	parts := map[int][]string{} // each sidecar's name parts, the most specific last
	for i, f := range files {
		if f.Kind != SidecarFile {
			continue
		}
		dirs := strings.Split(path.Dir(f.Path), "/")
		if path.Dir(f.Path) == "." {
			dirs = nil
		}
		p := append([]string{}, dirs...)
		if perDir[path.Dir(f.Path)] > 1 || len(dirs) == 0 {
			p = append(p, strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path)))
		}
		parts[i] = p
	}
	take := map[int]int{} // how many trailing parts each name uses
	for i, p := range parts {
		take[i] = min(len(p), 1)
		if perDir[path.Dir(files[i].Path)] > 1 && len(p) > 1 {
			take[i] = 2
		}
	}
	name := func(i int) string { return cleanName(strings.Join(parts[i][len(parts[i])-take[i]:], "-")) }
	for {
		byName := map[string][]int{}
		for i := range parts {
			byName[name(i)] = append(byName[name(i)], i)
		}
		grew := false
		for _, is := range byName {
			if len(is) < 2 {
				continue
			}
			for _, i := range is {
				if take[i] < len(parts[i]) {
					take[i]++
					grew = true
				}
			}
		}
		if !grew {
			break
		}
	}
	out := map[int]string{}
	used := map[string]int{}
	for i := range files { // in path order, so that a suffix goes to the later file
		if _, ok := parts[i]; !ok {
			continue
		}
		n := cmp.Or(name(i), "sidecar")
		if used[n]++; used[n] > 1 {
			n = fmt.Sprintf("%s-%d", n, used[n])
		}
		out[i] = n
	}
	return out
}

// Rename gives the sidecars of l the names a configuration gives them (byFile: a file, absolute
// and clean, joined to root when relative -> its name there), and each other sidecar a name
// the configuration does not take (its own, or with -2, -3 ... after it), in their needs as well:
// what `init --update` adds then reads as the configuration does.
func (l *Layout) Rename(root string, byFile map[string]string, taken map[string]bool) {
	to := map[string]string{}
	for _, f := range l.Files {
		if f.Kind != SidecarFile {
			continue
		}
		abs, err := filepath.Abs(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil {
			continue
		}
		if n, ok := byFile[abs]; ok {
			to[f.Name] = n
		}
	}
	for _, f := range l.Files {
		if _, ok := to[f.Name]; ok || f.Kind != SidecarFile {
			continue
		}
		n := f.Name
		for k := 2; taken[n]; k++ {
			n = fmt.Sprintf("%s-%d", f.Name, k)
		}
		taken[n], to[f.Name] = true, n
	}
	for i := range l.Files {
		f := &l.Files[i]
		if n, ok := to[f.Name]; ok && f.Kind == SidecarFile {
			f.Name = n
		}
		for j := range f.Needs {
			if n, ok := to[f.Needs[j].Sidecar]; ok {
				f.Needs[j].Sidecar = n
			}
		}
	}
}
