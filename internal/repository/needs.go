package repository

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// A sidecar's needs are the sidecars that create what its file uses: the relations it reads or
// writes, the columns another file's ALTER TABLE ... ADD COLUMN adds, the functions it calls
// (told apart by their number of arguments), the types it names, the schemas its qualified
// names go through, the objects it alters, grants, comments on or drops (policies, triggers,
// functions with their argument types), and, for a name no file creates, the extension another
// file creates that provides it. Function bodies count (PL/pgSQL and SQL), as do DO blocks and
// literal EXECUTE strings; SQL built at run time does not. What the prerequisites hold
// (lint.existing: the Open Brain core) is nobody's need. A reading the file does not settle (a
// column of a statement that reads several relations, of a PL/pgSQL record such as NEW, a
// function whose arguments do not match, an object two files create, an extension's member) is
// uncertain: the install settles it (a sidecar that does not install because of an object
// another creates gets that need suggested, see confirm.go).

// NeedsOf is one file read for its needs: the sidecar it is, its parsed file and its uses
// ([pgsql.ParseUses]).
type NeedsOf struct {
	Sidecar string
	File    *pgsql.File
	Uses    []pgsql.Use
}

// Need is a sidecar a file needs, and why.
type Need struct {
	// Sidecar is the sidecar needed.
	Sidecar string
	// Because are the file's uses of what the sidecar creates, in file order.
	Because []Because
	// Certain is set when one of them is: the file names the object unambiguously and the
	// sidecar alone creates it.
	Certain bool
	// Alternatives are the other sidecars that create what the file uses as well: one of them
	// may be the need instead (the install decides, see confirm.go).
	Alternatives []string
}

// How is how a file uses an object.
type How int

// The ways a file uses an object another creates.
const (
	Reads  How = iota // a relation or a column
	Calls             // a function (a call, or a trigger's function)
	Names             // a type, an operator class
	Into              // a schema its qualified names go through
	ActsOn            // an object it alters, grants, revokes, comments on, renames or drops
)

// verbs are how each How reads in a sentence.
var verbs = map[How]string{Reads: "reads", Calls: "calls", Names: "uses", Into: "uses", ActsOn: "changes"}

// Because is one reason a file needs a sidecar: it uses (How) Object, which the sidecar creates
// (or, Adds, adds to a table with ALTER TABLE ... ADD COLUMN; or, Extension, provides through
// an extension it creates), at Pos.
type Because struct {
	How       How
	Object    pgsql.Object
	Adds      bool
	Extension string
	Pos       finding.Position
	Certain   bool
}

// String says the reason after the file's name: "reads column public.thoughts.source_type
// (line 12), which enhanced-thoughts adds".
func (b Because) String(creator string) string {
	what := b.Object.Label()
	if b.Object.Kind == pgsql.KindColumn {
		what = "column " + b.Object.Table.String() + "." + pgsql.QuoteIdent(b.Object.Name.Name)
	}
	did := "creates"
	if b.Adds {
		did = "adds"
	}
	s := fmt.Sprintf("%s %s (line %d), which %s %s", verbs[b.How], what, b.Pos.Line, creator, did)
	if b.Extension != "" {
		s = fmt.Sprintf("%s %s (line %d), which the extension %s provides (%s creates it)", verbs[b.How], what, b.Pos.Line, b.Extension, creator)
	}
	if !b.Certain {
		s += " (uncertain)"
	}
	return s
}

// Sentence is the need as a finding or a comment says it: "readwise-books reads column
// public.thoughts.source_type (line 12), which enhanced-thoughts adds".
func (n Need) Sentence(file string) string {
	if len(n.Because) == 0 {
		return file + " needs " + n.Sidecar
	}
	s := file + " " + n.Because[0].String(n.Sidecar)
	if more := len(n.Because) - 1; more > 0 {
		s += fmt.Sprintf(", and %d more use", more)
		if more > 1 {
			s += "s"
		}
	}
	return s
}

// ckey identifies what a file creates for matching: a class ("relation", "function", "type",
// "schema", "column", "extension", or another kind), a name and, for what lives on a table, the
// table.
type ckey struct {
	class string
	name  pgsql.Name
	table pgsql.Name
}

// creation is an object a sidecar creates.
type creation struct {
	sidecar string
	obj     pgsql.Object
	adds    bool
}

// classOf is the matching class of an object kind: relations share one namespace, and so do
// functions and procedures.
func classOf(k pgsql.ObjKind) string {
	switch k {
	case pgsql.KindTable, pgsql.KindView, pgsql.KindMatView, pgsql.KindForeignTable, pgsql.KindSequence, pgsql.KindIndex:
		return "relation"
	case pgsql.KindProcedure:
		return string(pgsql.KindFunction)
	}
	return string(k)
}

// keyOf is an object's matching key.
func keyOf(o pgsql.Object) ckey {
	k := ckey{class: classOf(o.Kind), name: o.Name}
	if o.Kind.OnTable() {
		k.table = o.Table
	}
	return k
}

// needIndex is what every file creates, and what each file itself creates.
type needIndex struct {
	by       map[ckey][]creation
	columns  map[string][]creation // added columns by column name
	own      map[string]map[ckey]bool
	existing func(pgsql.Object) bool
}

// newNeedIndex indexes what files create: their objects (less those the prerequisites hold,
// which exist for every sidecar) and the columns their ALTER TABLE ... ADD COLUMN adds.
func newNeedIndex(files []NeedsOf, policy lint.Config) *needIndex {
	ix := &needIndex{by: map[ckey][]creation{}, columns: map[string][]creation{}, own: map[string]map[ckey]bool{}, existing: policy.IsExisting()}
	for _, f := range files {
		own := map[ckey]bool{}
		ix.own[f.Sidecar] = own
		add := func(c creation) {
			k := keyOf(c.obj)
			own[k] = true
			if ix.existing(c.obj) {
				return
			}
			ix.by[k] = append(ix.by[k], c)
			if c.adds {
				ix.columns[c.obj.Name.Name] = append(ix.columns[c.obj.Name.Name], c)
			}
		}
		for _, obj := range lint.Created(f.File) {
			add(creation{sidecar: f.Sidecar, obj: obj})
		}
		for _, col := range addedColumns(f.File) {
			add(creation{sidecar: f.Sidecar, obj: col, adds: true})
		}
	}
	return ix
}

// addedColumns are the columns f's ALTER TABLE statements add, each a KindColumn object on its
// table.
func addedColumns(f *pgsql.File) []pgsql.Object {
	if f == nil {
		return nil
	}
	var out []pgsql.Object
	for i := range f.Ops {
		op := &f.Ops[i]
		if op.Verb != pgsql.VerbAlter || len(op.Objects) == 0 || op.Objects[0].Kind != pgsql.KindTable {
			continue
		}
		for _, c := range op.AlterCmds() {
			if c.Action == "AddColumn" && c.Name != "" {
				out = append(out, pgsql.Object{Kind: pgsql.KindColumn, Name: pgsql.Name{Name: c.Name}, Table: op.Objects[0].Name, Pos: c.Pos})
			}
		}
	}
	return out
}

// resolve returns the names an unqualified name may stand for through path (public when the
// path is empty), or the name itself when qualified.
func resolve(n pgsql.Name, path []string) []pgsql.Name {
	if n.Schema != "" {
		return []pgsql.Name{n}
	}
	var out []pgsql.Name
	for _, s := range path {
		if s != "" && s != "$user" && s != "pg_catalog" && s != "pg_temp" {
			out = append(out, pgsql.Name{Schema: s, Name: n.Name})
		}
	}
	if len(out) == 0 {
		out = []pgsql.Name{{Schema: "public", Name: n.Name}}
	}
	return out
}

// FindNeeds returns each file's needs, in the order of files (each file's needs in the order of
// files too), read with the lint policy policy (its lint.existing: what every sidecar has).
func FindNeeds(files []NeedsOf, policy lint.Config) [][]Need {
	ix := newNeedIndex(files, policy)
	order := map[string]int{}
	for i, f := range files {
		order[f.Sidecar] = i
	}
	out := make([][]Need, len(files))
	for i, f := range files {
		m := &matcher{ix: ix, self: f.Sidecar, needs: map[string]*Need{}}
		m.uses(f)
		m.acts(f.File)
		m.schemas(f)
		for _, n := range m.needs {
			out[i] = append(out[i], *n)
		}
		slices.SortFunc(out[i], func(a, b Need) int { return order[a.Sidecar] - order[b.Sidecar] })
	}
	return out
}

// matcher finds one file's needs.
type matcher struct {
	ix    *needIndex
	self  string
	needs map[string]*Need
}

// found records that the file needs whoever creates one of keys (the first that anyone but the
// file itself creates), because of b. filter, when not nil, keeps the creations that fit the
// use (a function's number of arguments); when it keeps none, all are kept, uncertain.
func (m *matcher) found(keys []ckey, b Because, filter func(creation) bool) bool {
	for _, k := range keys {
		if m.ix.own[m.self][k] {
			return true // the file creates it itself
		}
		cs := m.others(m.ix.by[k])
		if len(cs) == 0 {
			continue
		}
		if filter != nil {
			if fit := slices.DeleteFunc(slices.Clone(cs), func(c creation) bool { return !filter(c) }); len(fit) > 0 {
				cs = fit
			} else {
				b.Certain = false
			}
		}
		m.record(cs, b)
		return true
	}
	return false
}

// others are the creations of sidecars other than the file's own.
func (m *matcher) others(cs []creation) []creation {
	return slices.DeleteFunc(slices.Clone(cs), func(c creation) bool { return c.sidecar == m.self })
}

// record records the need of the first of cs (certain only when it alone creates the object).
func (m *matcher) record(cs []creation, b Because) {
	sidecars := map[string]bool{}
	for _, c := range cs {
		sidecars[c.sidecar] = true
	}
	if len(sidecars) > 1 {
		b.Certain = false
	}
	c := cs[0]
	b.Object, b.Adds = c.obj, c.adds
	n := m.needs[c.sidecar]
	if n == nil {
		n = &Need{Sidecar: c.sidecar}
		m.needs[c.sidecar] = n
	}
	n.Because = append(n.Because, b)
	n.Certain = n.Certain || b.Certain
	for _, o := range cs[1:] {
		if o.sidecar != c.sidecar && !slices.Contains(n.Alternatives, o.sidecar) {
			n.Alternatives = append(n.Alternatives, o.sidecar)
		}
	}
}

// keys are the matching keys of class for the names n may stand for through path.
func keys(class string, n pgsql.Name, path []string) []ckey {
	var out []ckey
	for _, r := range resolve(n, path) {
		out = append(out, ckey{class: class, name: r})
	}
	return out
}

// uses matches the file's uses against what the others create.
func (m *matcher) uses(f NeedsOf) {
	refs := referenced(f)
	for _, u := range f.Uses {
		b := Because{Pos: u.Pos, Certain: true}
		switch u.Kind {
		case pgsql.KindTable:
			b.How = Reads
			m.found(keys("relation", u.Name, u.SearchPath), b, nil)
		case pgsql.KindFunction:
			b.How = Calls
			args := u.Args
			if !m.found(keys("function", u.Name, u.SearchPath), b, func(c creation) bool { return len(c.obj.Args) == args }) {
				m.extension(u, b)
			}
		case pgsql.KindType, pgsql.KindOpClass:
			b.How = Names
			if !m.found(keys(classOf(u.Kind), u.Name, u.SearchPath), b, nil) {
				m.extension(u, b)
			}
		case pgsql.KindColumn:
			b.How = Reads
			m.column(u, b, refs)
		}
	}
}

// column matches a column use with the columns other files add: to its relation when the
// statement says which, else (uncertain) to one of the relations it reads, or, when it reads
// none (a PL/pgSQL record), to any relation the file names.
func (m *matcher) column(u pgsql.Use, b Because, refs []pgsql.Name) {
	col := pgsql.Name{Name: u.Name.Name}
	tables := []pgsql.Name{u.Table}
	switch {
	case u.Table != (pgsql.Name{}):
	case len(u.Tables) > 0:
		tables, b.Certain = u.Tables, false
	default:
		tables, b.Certain = nil, false
		for _, c := range m.others(m.ix.columns[col.Name]) {
			if slices.Contains(refs, c.obj.Table) {
				m.record([]creation{c}, b)
				return
			}
		}
	}
	for _, t := range tables {
		for _, r := range resolve(t, u.SearchPath) {
			if m.found([]ckey{{class: string(pgsql.KindColumn), name: col, table: r}}, b, nil) {
				return
			}
		}
	}
}

// referenced are the relations the file names (resolved): those it reads or writes, and those
// it attaches triggers, policies or rules to.
func referenced(f NeedsOf) []pgsql.Name {
	var out []pgsql.Name
	for _, u := range f.Uses {
		if u.Kind == pgsql.KindTable {
			out = append(out, resolve(u.Name, u.SearchPath)...)
		}
	}
	if f.File != nil {
		for i := range f.File.Ops {
			for _, o := range f.File.Ops[i].Objects {
				if o.Kind.OnTable() && o.Table != (pgsql.Name{}) {
					out = append(out, o.Table)
				}
			}
		}
	}
	return out
}

// acting are the verbs of statements that change an object without creating it.
var acting = map[pgsql.Verb]bool{pgsql.VerbAlter: true, pgsql.VerbDrop: true, pgsql.VerbRename: true, pgsql.VerbComment: true,
	pgsql.VerbGrant: true, pgsql.VerbRevoke: true, pgsql.VerbTruncate: true}

// acts matches the objects the file's statements alter, grant on, comment on, rename or drop
// (a DROP ... IF EXISTS excepted: it runs without the object) with what the others create;
// a function by its argument types when the statement gives them.
func (m *matcher) acts(f *pgsql.File) {
	if f == nil {
		return
	}
	for i := range f.Ops {
		op := &f.Ops[i]
		if !acting[op.Verb] || op.Verb == pgsql.VerbDrop && op.IfExists {
			continue
		}
		for _, obj := range op.Objects {
			b := Because{How: ActsOn, Pos: obj.Pos, Certain: true}
			m.found([]ckey{keyOf(obj)}, b, func(c creation) bool { return obj.SameArgs(c.obj) })
		}
	}
}

// schemas matches the schemas the file's qualified names go through (its uses and what it
// creates) with the schemas the others create.
func (m *matcher) schemas(f NeedsOf) {
	seen := map[string]bool{}
	try := func(schema string, pos finding.Position) {
		if schema == "" || seen[schema] {
			return
		}
		seen[schema] = true
		m.found([]ckey{{class: string(pgsql.KindSchema), name: pgsql.Name{Name: schema}}}, Because{How: Into, Pos: pos, Certain: true}, nil)
	}
	for _, u := range f.Uses {
		try(u.Name.Schema, u.Pos)
		try(u.Table.Schema, u.Pos)
	}
	for _, obj := range lint.Created(f.File) {
		if obj.Qualified && obj.Kind != pgsql.KindSchema {
			try(obj.Name.Schema, obj.Pos)
		}
	}
}

// extensionMembers are names well-known extensions provide, by extension: a use of one that no
// file creates needs the file that creates the extension (uncertain: another extension, or the
// environment, may provide the name too).
var extensionMembers = map[string][]string{
	"pg_trgm":       {"similarity", "word_similarity", "strict_word_similarity", "show_trgm", "gin_trgm_ops", "gist_trgm_ops", "set_limit", "show_limit"},
	"citext":        {"citext"},
	"hstore":        {"hstore", "akeys", "avals", "skeys", "svals", "each"},
	"ltree":         {"ltree", "lquery", "ltxtquery", "nlevel", "subltree", "subpath", "lca", "text2ltree", "ltree2text"},
	"unaccent":      {"unaccent"},
	"fuzzystrmatch": {"levenshtein", "levenshtein_less_equal", "soundex", "metaphone", "dmetaphone", "dmetaphone_alt", "difference"},
	"uuid-ossp":     {"uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v3", "uuid_generate_v4", "uuid_generate_v5", "uuid_nil"},
	"pgcrypto":      {"crypt", "gen_salt", "digest", "hmac", "gen_random_bytes", "pgp_sym_encrypt", "pgp_sym_decrypt", "armor", "dearmor"},
	"intarray":      {"gin__int_ops", "gist__int_ops", "icount", "sort_asc", "sort_desc", "uniq", "idx", "subarray"},
	"cube":          {"cube"},
	"earthdistance": {"earth", "ll_to_earth", "earth_distance", "earth_box"},
	"btree_gin":     {},
	"btree_gist":    {},
}

// extension matches a use no file creates with the extension another file creates that
// provides it.
func (m *matcher) extension(u pgsql.Use, b Because) {
	for _, ext := range slices.Sorted(maps.Keys(extensionMembers)) {
		if !slices.Contains(extensionMembers[ext], strings.ToLower(u.Name.Name)) {
			continue
		}
		if cs := m.others(m.ix.by[ckey{class: string(pgsql.KindExtension), name: pgsql.Name{Name: ext}}]); len(cs) > 0 && !m.ix.own[m.self][ckey{class: string(pgsql.KindExtension), name: pgsql.Name{Name: ext}}] {
			b.Certain, b.Extension = false, ext
			kind := pgsql.KindFunction
			if u.Kind != pgsql.KindFunction {
				kind = u.Kind
			}
			m.record(cs, b)
			n := m.needs[cs[0].sidecar]
			n.Because[len(n.Because)-1].Object = pgsql.Object{Kind: kind, Name: u.Name}
			return
		}
	}
}

// Dropped is a need left out because it closes a cycle of needs: Sidecar needs Need.Sidecar,
// which needs Sidecar, directly or not.
type Dropped struct {
	Sidecar string
	Need    Need
}

// Acyclic removes from needs (those of names[i] at needs[i]) the needs that close a cycle, which
// a configuration refuses (a sidecar cannot be installed before itself): in each cycle, the last
// uncertain need, else the need that closes it. It returns what it removed.
func Acyclic(names []string, needs [][]Need) []Dropped {
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	var dropped []Dropped
	for {
		cycle := findCycle(names, index, needs)
		if cycle == nil {
			return dropped
		}
		pick := cycle[len(cycle)-1]
		for _, e := range cycle {
			if !needs[e[0]][e[1]].Certain {
				pick = e
			}
		}
		i, j := pick[0], pick[1]
		dropped = append(dropped, Dropped{Sidecar: names[i], Need: needs[i][j]})
		needs[i] = slices.Delete(needs[i], j, j+1)
	}
}

// findCycle returns the edges of a cycle of needs (each {file, index of the need}), or nil.
func findCycle(names []string, index map[string]int, needs [][]Need) [][2]int {
	state := make([]int, len(names)) // 0 unvisited, 1 on the path, 2 done
	var path [][2]int
	var visit func(i int) [][2]int
	visit = func(i int) [][2]int {
		state[i] = 1
		for j, n := range needs[i] {
			k, ok := index[n.Sidecar]
			if !ok {
				continue
			}
			path = append(path, [2]int{i, j})
			switch state[k] {
			case 1:
				for s := range path {
					if path[s][0] == k {
						return slices.Clone(path[s:])
					}
				}
			case 0:
				if c := visit(k); c != nil {
					return c
				}
			}
			path = path[:len(path)-1]
		}
		state[i] = 2
		return nil
	}
	for i := range names {
		if state[i] == 0 {
			if c := visit(i); c != nil {
				return c
			}
		}
	}
	return nil
}
