package lint

import (
	"strings"

	"ledgercheck/internal/finding"
	"ledgercheck/internal/pgsql"
)

// Ownership is the set of objects a file creates (anywhere in it, bodies included), less the
// objects configuration says exist beforehand: re-creating those is changing them.
type Ownership struct {
	created  map[ownKey]finding.Position
	schemas  map[string]bool
	existing map[string]bool
}

// ownKey is an object identity in which the relation kinds (table, view, index, sequence,
// materialized view) share one namespace, as they share pg_class.
type ownKey struct {
	class string
	name  pgsql.Name
	table pgsql.Name
}

func keyOf(kind pgsql.ObjKind, name, table pgsql.Name) ownKey {
	class := string(kind)
	switch kind {
	case pgsql.KindTable, pgsql.KindView, pgsql.KindMatView, pgsql.KindIndex, pgsql.KindSequence:
		class = "relation"
	case pgsql.KindProcedure:
		class = string(pgsql.KindFunction)
	}
	if !kind.OnTable() {
		table = pgsql.Name{}
	}
	return ownKey{class, name, table}
}

// NewOwnership computes what f creates, given the configured pre-existing objects.
func NewOwnership(f *pgsql.File, cfg Config) *Ownership {
	o := &Ownership{created: map[ownKey]finding.Position{}, schemas: map[string]bool{}, existing: map[string]bool{}}
	for _, e := range cfg.Existing {
		o.existing[strings.TrimSpace(e)] = true
	}
	for i := range f.Ops {
		op := &f.Ops[i]
		if op.Verb != pgsql.VerbCreate || len(op.Objects) == 0 {
			continue
		}
		obj := op.Objects[0]
		if o.existing[obj.String()] {
			continue
		}
		k := keyOf(obj.Kind, obj.Name, obj.Table)
		if _, dup := o.created[k]; !dup {
			o.created[k] = obj.Pos
		}
		if obj.Kind == pgsql.KindSchema {
			o.schemas[obj.Name.Name] = true
		}
	}
	return o
}

// Existing reports whether configuration lists obj as existing before the file runs.
func (o *Ownership) Existing(obj pgsql.Object) bool { return o.existing[obj.String()] }

// Owns reports whether the file creates obj. An object named within a table (column, constraint)
// is owned when the table is; a policy, trigger or rule when the file creates it or its table.
// An unqualified name is looked up in each schema of the search_path in effect.
func (o *Ownership) Owns(obj pgsql.Object, path []string) bool {
	switch obj.Kind {
	case pgsql.KindColumn, pgsql.KindConstraint:
		return o.owns(pgsql.KindTable, obj.Table, pgsql.Name{}, obj.Qualified, path)
	case pgsql.KindPolicy, pgsql.KindTrigger, pgsql.KindRule:
		if o.owns(obj.Kind, obj.Name, obj.Table, obj.Qualified, path) {
			return true
		}
		return o.owns(pgsql.KindTable, obj.Table, pgsql.Name{}, obj.Qualified, path)
	}
	return o.owns(obj.Kind, obj.Name, obj.Table, obj.Qualified, path)
}

func (o *Ownership) owns(kind pgsql.ObjKind, name, table pgsql.Name, qualified bool, path []string) bool {
	if kind.OnTable() {
		// The table's schema decides; try it as written, then through the path.
		if _, ok := o.created[keyOf(kind, name, table)]; ok {
			return true
		}
		if !qualified {
			for _, s := range path {
				if _, ok := o.created[keyOf(kind, name, pgsql.Name{Schema: s, Name: table.Name})]; ok {
					return true
				}
			}
		}
		return false
	}
	if name.Schema != "" && o.schemas[name.Schema] && qualified {
		return true
	}
	if _, ok := o.created[keyOf(kind, name, table)]; ok {
		return true
	}
	if !qualified && name.Schema != "" {
		for _, s := range path {
			if o.schemas[s] {
				continue
			}
			if _, ok := o.created[keyOf(kind, pgsql.Name{Schema: s, Name: name.Name}, table)]; ok {
				return true
			}
		}
	}
	if kind == pgsql.KindSchema && o.schemas[name.Name] {
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
	// Attach is set for CREATE TRIGGER, POLICY, RULE or INDEX on a table the file did not
	// create (reported by attaches-to-existing-table rather than modifies-existing-object).
	Attach bool
}

// ExistingTouches lists everything f does to objects it did not create, in file order, nested
// statements included, and whether cfg allows each. The dynamic cross-check compares an
// installed footprint on pre-existing objects with the allowed touches.
func ExistingTouches(f *pgsql.File, cfg Config) []Touch {
	return existingTouches(f, cfg, NewOwnership(f, cfg))
}

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
				if op.Grant() != nil && op.Grant().Defaults || !own.Owns(obj, op.SearchPath) {
					out = append(out, touch(cfg, op, obj, detail))
				}
			}
		}
	}
	return out
}

func touch(cfg Config, op *pgsql.Op, obj pgsql.Object, detail string) Touch {
	return Touch{Object: obj, Verb: op.Verb, Detail: detail, Op: op, Allowed: cfg.allows(obj.String(), string(op.Verb))}
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
