package lint

import (
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// Ownership is the set of objects a file creates (anywhere in it, bodies included), less the
// objects configuration says exist beforehand: re-creating those is changing them. Functions are
// identified by name and argument types; the sequences of the file's serial and identity columns
// and the columns it adds to any table are the file's too.
type Ownership struct {
	created  map[ownKey]finding.Position
	schemas  map[string]bool
	columns  map[[2]pgsql.Name]bool // {table, {"", column}} added by the file
	existing existingSet
}

// ownKey is an object identity in which the relation kinds (table, view, index, sequence,
// materialized view) share one namespace, as they share pg_class, and functions are told apart
// by their argument types.
type ownKey struct {
	class string
	name  pgsql.Name
	table pgsql.Name
	args  string
}

func keyOf(o pgsql.Object) ownKey {
	class := string(o.Kind)
	switch o.Kind {
	case pgsql.KindTable, pgsql.KindView, pgsql.KindMatView, pgsql.KindIndex, pgsql.KindSequence, pgsql.KindForeignTable:
		class = "relation"
	case pgsql.KindProcedure:
		class = string(pgsql.KindFunction)
	}
	table := o.Table
	if !o.Kind.OnTable() {
		table = pgsql.Name{}
	}
	args := ""
	if isFunction(o) && o.HasArgs {
		args = strings.Join(o.Args, ",")
	}
	return ownKey{class, o.Name, table, args}
}

func isFunction(o pgsql.Object) bool {
	return o.Kind == pgsql.KindFunction || o.Kind == pgsql.KindProcedure
}

// existingSet is lint.existing: objects by [pgsql.Object.String], and functions by name with
// the argument lists configured (none: every overload of the name).
type existingSet struct {
	objects map[string]bool
	fns     map[pgsql.Name][]pgsql.Object
}

func newExistingSet(entries []string) existingSet {
	e := existingSet{objects: map[string]bool{}, fns: map[pgsql.Name][]pgsql.Object{}}
	for _, entry := range entries {
		entry = strings.TrimSpace(entry)
		if kind, ref, ok := strings.Cut(entry, " "); ok && (kind == string(pgsql.KindFunction) || kind == string(pgsql.KindProcedure)) {
			if fn, err := pgsql.ParseFunctionRef(ref); err == nil {
				e.fns[fn.Name] = append(e.fns[fn.Name], fn)
				continue
			}
		}
		e.objects[entry] = true
	}
	return e
}

// has reports whether obj is listed: a function when an entry names it without arguments (every
// overload), with the same arguments, or when obj itself names no argument list.
func (e existingSet) has(obj pgsql.Object) bool {
	if !isFunction(obj) {
		return e.objects[obj.String()]
	}
	for _, fn := range e.fns[obj.Name] {
		if obj.SameArgs(fn) {
			return true
		}
	}
	return false
}

// NewOwnership computes what f creates, given the configured pre-existing objects.
func NewOwnership(f *pgsql.File, cfg Config) *Ownership {
	o := &Ownership{created: map[ownKey]finding.Position{}, schemas: map[string]bool{}, columns: map[[2]pgsql.Name]bool{}, existing: newExistingSet(cfg.Existing)}
	add := func(obj pgsql.Object) {
		k := keyOf(obj)
		if _, dup := o.created[k]; !dup {
			o.created[k] = obj.Pos
		}
		if obj.Kind == pgsql.KindSchema {
			o.schemas[obj.Name.Name] = true
		}
	}
	eachCreated(f, func(obj pgsql.Object, implicit bool) {
		if implicit || !o.existing.has(obj) {
			add(obj)
		}
	})
	for i := range f.Ops {
		op := &f.Ops[i]
		if op.Verb == pgsql.VerbAlter && len(op.Objects) > 0 {
			for _, c := range op.AlterCmds() {
				if c.Action == "AddColumn" {
					o.columns[[2]pgsql.Name{op.Objects[0].Name, {Name: c.Name}}] = true
				}
			}
		}
	}
	return o
}

// eachCreated calls fn with every object f creates, in file order: those a statement creates
// implicitly (a serial column's sequence: implicit), those an EXECUTE of a format() template
// creates, and the object of each CREATE.
func eachCreated(f *pgsql.File, fn func(obj pgsql.Object, implicit bool)) {
	for i := range f.Ops {
		op := &f.Ops[i]
		for _, obj := range op.Implicit {
			fn(obj, true)
		}
		if d := op.Dynamic(); d != nil {
			for _, obj := range d.Creates {
				fn(obj, false)
			}
		}
		if op.Verb == pgsql.VerbCreate && len(op.Objects) > 0 {
			fn(op.Objects[0], false)
		}
	}
}

// earlierOverload reports whether op drops an overload of a function name the file creates,
// which configuration does not list as existing: the file's own earlier version of the function
// (DROP FUNCTION IF EXISTS f(old args) before CREATE FUNCTION f(new args)), the clean-up the
// upgrade audit's upgrade-stale-object asks for, not a change to somebody else's object.
func (o *Ownership) earlierOverload(op *pgsql.Op, obj pgsql.Object) bool {
	if op.Verb != pgsql.VerbDrop || !isFunction(obj) || !obj.HasArgs || o.existing.has(obj) {
		return false
	}
	name := obj
	name.HasArgs, name.Args = false, nil
	return o.Owns(name, op.SearchPath)
}

// Existing reports whether configuration lists obj as existing before the file runs.
func (o *Ownership) Existing(obj pgsql.Object) bool { return o.existing.has(obj) }

// Owns reports whether the file creates obj. An object named within a table (column, constraint)
// is owned when the table is (a column also when the file adds it); a policy, trigger or rule
// when the file creates it or its table. An unqualified name is looked up in each schema of the
// search_path in effect. A function named without arguments is owned when the file creates an
// overload of that name that configuration does not list.
func (o *Ownership) Owns(obj pgsql.Object, path []string) bool {
	switch obj.Kind {
	case pgsql.KindColumn, pgsql.KindConstraint:
		if obj.Kind == pgsql.KindColumn && o.addedColumn(obj, path) {
			return true
		}
		return o.owns(pgsql.Object{Kind: pgsql.KindTable, Name: obj.Table, Qualified: obj.Qualified}, path)
	case pgsql.KindPolicy, pgsql.KindTrigger, pgsql.KindRule:
		if o.owns(obj, path) {
			return true
		}
		return o.owns(pgsql.Object{Kind: pgsql.KindTable, Name: obj.Table, Qualified: obj.Qualified}, path)
	}
	return o.owns(obj, path)
}

func (o *Ownership) addedColumn(col pgsql.Object, path []string) bool {
	if o.columns[[2]pgsql.Name{col.Table, {Name: col.Name.Name}}] {
		return true
	}
	if !col.Qualified {
		for _, s := range path {
			if o.columns[[2]pgsql.Name{{Schema: s, Name: col.Table.Name}, {Name: col.Name.Name}}] {
				return true
			}
		}
	}
	return false
}

// created reports whether the file creates obj as named (a function without arguments: any
// overload the configuration does not list).
func (o *Ownership) createdAs(obj pgsql.Object) bool {
	if isFunction(obj) && !obj.HasArgs {
		if o.existing.has(obj) {
			return false
		}
		k := keyOf(obj)
		for c := range o.created {
			if c.class == k.class && c.name == k.name {
				return true
			}
		}
		return false
	}
	_, ok := o.created[keyOf(obj)]
	return ok
}

func (o *Ownership) owns(obj pgsql.Object, path []string) bool {
	if obj.Kind.OnTable() {
		// The table's schema decides; try it as written, then through the path.
		if o.createdAs(obj) {
			return true
		}
		if !obj.Qualified {
			for _, s := range path {
				alt := obj
				alt.Table = pgsql.Name{Schema: s, Name: obj.Table.Name}
				if o.createdAs(alt) {
					return true
				}
			}
		}
		return false
	}
	name := obj.Name
	if name.Schema != "" && o.schemas[name.Schema] && obj.Qualified {
		return true
	}
	if o.createdAs(obj) {
		return true
	}
	if !obj.Qualified && name.Schema != "" {
		for _, s := range path {
			if o.schemas[s] {
				continue
			}
			alt := obj
			alt.Name = pgsql.Name{Schema: s, Name: name.Name}
			if o.createdAs(alt) {
				return true
			}
		}
	}
	if obj.Kind == pgsql.KindSchema && o.schemas[name.Name] {
		return true
	}
	return false
}

// Touch is one thing a file does to an object it did not create: the static answer to "which
// pre-existing objects may the installed footprint show as changed, and how".
type Touch struct {
	// Object is the pre-existing object.
	Object pgsql.Object
	// Verb is what the statement does: alter, drop, rename, truncate, comment, grant, revoke, or
	// create (attaching a trigger, policy, rule or index to an existing table, or re-creating a
	// pre-existing object).
	Verb pgsql.Verb
	// Detail adds the ALTER subcommands or the privileges, when there are any.
	Detail string
	// Op is the statement; Op.At() is where it happens in the file.
	Op *pgsql.Op
	// Allowed reports whether configuration allows it.
	Allowed bool
	// Review, when not "", says why an entry of lint.allow for the object does not allow it (a
	// trigger created otherwise than the entry pins).
	Review string
	// Attach is set for CREATE TRIGGER, POLICY, RULE or INDEX on a table the file did not
	// create (reported by attaches-to-existing-table rather than modifies-existing-object).
	Attach bool
}

// existingTouches lists everything f does to objects it did not create, in file order, nested
// statements included, and whether cfg allows each.
func existingTouches(f *pgsql.File, cfg Config, own *Ownership) []Touch {
	var out []Touch
	for i := range f.Ops {
		op := &f.Ops[i]
		switch op.Verb {
		case pgsql.VerbCreate:
			if len(op.Objects) == 0 {
				continue
			}
			obj := op.Objects[0]
			if own.Existing(obj) {
				out = append(out, touch(cfg, op, obj, ""))
				continue
			}
			var table pgsql.Object
			switch obj.Kind {
			case pgsql.KindPolicy, pgsql.KindTrigger, pgsql.KindRule, pgsql.KindIndex:
				table = pgsql.Object{Kind: pgsql.KindTable, Name: obj.Table, Qualified: obj.Qualified, Pos: obj.Pos}
			default:
				continue
			}
			if own.Owns(table, op.SearchPath) {
				continue
			}
			t := touch(cfg, op, obj, "")
			t.Attach = true
			out = append(out, t)
		case pgsql.VerbAlter, pgsql.VerbDrop, pgsql.VerbRename, pgsql.VerbTruncate, pgsql.VerbComment, pgsql.VerbGrant, pgsql.VerbRevoke:
			if op.Grant() != nil && op.Grant().Role {
				out = append(out, roleTouches(cfg, own, op)...)
				continue
			}
			detail := ""
			if op.Grant() != nil {
				detail = strings.Join(op.Grant().Privileges, ", ") + " to " + strings.Join(op.Grant().Grantees, ", ")
				if op.Verb == pgsql.VerbRevoke {
					detail = strings.Join(op.Grant().Privileges, ", ") + " from " + strings.Join(op.Grant().Grantees, ", ")
				}
			}
			if len(op.AlterCmds()) > 0 {
				var acts []string
				for _, c := range op.AlterCmds() {
					acts = append(acts, c.Action)
				}
				detail = strings.Join(acts, ", ")
			}
			for _, obj := range op.Objects {
				if obj.Name.Name == "" && obj.Kind != "default privileges" {
					continue
				}
				if op.Grant() != nil && op.Grant().Defaults || !own.Owns(obj, op.SearchPath) && !own.earlierOverload(op, obj) {
					out = append(out, touch(cfg, op, obj, detail))
				}
			}
		}
	}
	return out
}

func touch(cfg Config, op *pgsql.Op, obj pgsql.Object, detail string) Touch {
	t := Touch{Object: obj, Verb: op.Verb, Detail: detail, Op: op, Allowed: cfg.allows(obj.String(), string(op.Verb))}
	if t.Allowed && op.Trigger() != nil {
		t.Review = cfg.triggerReview(obj.String(), op.Trigger())
		t.Allowed = t.Review == ""
	}
	return t
}

// roleTouches reports GRANT/REVOKE of role membership: it changes the grantee roles (and the
// granted roles, when the file did not create them).
func roleTouches(cfg Config, own *Ownership, op *pgsql.Op) []Touch {
	var granted []string
	var out []Touch
	for _, r := range op.Objects {
		granted = append(granted, r.Name.Name)
		if !own.Owns(r, op.SearchPath) {
			out = append(out, touch(cfg, op, r, "membership granted to "+strings.Join(op.Grant().Grantees, ", ")))
		}
	}
	for _, g := range op.Grant().Grantees {
		obj := pgsql.Object{Kind: pgsql.KindRole, Name: pgsql.Name{Name: g}, Qualified: true, Pos: op.At()}
		if !own.Owns(obj, op.SearchPath) {
			out = append(out, touch(cfg, op, obj, "made a member of "+strings.Join(granted, ", ")))
		}
	}
	return out
}

// Creates lists what f creates, as lint.existing entries are written ([pgsql.Object.Label]: a
// function with its argument types): the objects of a prerequisite file, which exist before the
// file under review runs.
func Creates(f *pgsql.File) []string {
	var out []string
	for _, obj := range Created(f) {
		out = append(out, obj.Label())
	}
	return out
}

// Created lists the objects f creates, each once (by [pgsql.Object.Label]), in file order:
// those of each CREATE, those a statement creates implicitly (a serial column's sequence) and
// those an EXECUTE of a format() template creates under names of their own.
func Created(f *pgsql.File) []pgsql.Object {
	if f == nil {
		return nil
	}
	var out []pgsql.Object
	seen := map[string]bool{}
	eachCreated(f, func(obj pgsql.Object, _ bool) {
		if l := obj.Label(); !seen[l] {
			seen[l] = true
			out = append(out, obj)
		}
	})
	return out
}

// IsExisting returns whether an object is one lint.existing lists (a function by name and
// argument types, or by name alone for every overload): an object the prerequisites create.
func (c Config) IsExisting() func(pgsql.Object) bool { return newExistingSet(c.Existing).has }

// WithPrerequisites returns c with what each prerequisite file creates added to Existing: a
// sidecar's prerequisites are existing objects for the ownership rules, with nothing typed
// into lint.existing by hand.
func (c Config) WithPrerequisites(files ...*pgsql.File) Config {
	var extra []string
	for _, f := range files {
		extra = append(extra, Creates(f)...)
	}
	if len(extra) == 0 {
		return c
	}
	c.Existing = append(slices.Clip(c.Existing), extra...)
	return c
}
