// Package locate maps catalog objects to the statements of a migration that create or change
// them: the one mapping from object identity (kind, schema, name, table, function arguments) to a
// position in the file, which every phase's findings use (the installed audit, parity and probe
// differences, the rerun audit). An [Index] is built once per parsed file, from lint's reading
// of it (pgsql.Op: what each statement does to which object); objects are named as the catalog
// names them (introspect: "table public.t", "policy p on public.t", "function public.f(text)").
package locate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// Index is what each statement of one file does, by object.
type Index struct {
	file  *pgsql.File
	byKey map[string][]entry
	// unnamed are the CREATE INDEX statements that leave the index's name to the server.
	unnamed []entry
}

// entry is one statement acting on an object.
type entry struct {
	op  *pgsql.Op
	pos finding.Position
	// main is false for an object a statement names without acting on it (the table of CREATE
	// INDEX, CREATE TRIGGER, CREATE POLICY).
	main bool
	// cmd is the ALTER TABLE subcommand that adds a column or constraint, if it is one, or
	// "member" for a GRANT of a role to the object (a role).
	cmd string
}

// New indexes f; nil gives an index that finds nothing.
func New(f *pgsql.File) *Index {
	ix := &Index{file: f, byKey: map[string][]entry{}}
	if f == nil {
		return ix
	}
	for i := range f.Ops {
		op := &f.Ops[i]
		if op.Context == pgsql.InFunction {
			continue // runs only when called; see Changer
		}
		for j, o := range op.Objects {
			main := j == 0 || op.Verb != pgsql.VerbCreate
			if o.Kind == pgsql.KindIndex && o.Name.Name == "" { // the server names it: table_column_idx
				ix.unnamed = append(ix.unnamed, entry{op: op, pos: op.Pos, main: main})
				continue
			}
			ix.add(objectKey(o), entry{op: op, pos: op.Pos, main: main})
			if (o.Kind == pgsql.KindFunction || o.Kind == pgsql.KindProcedure) && o.HasArgs {
				ix.add(overloads(o.Name), entry{op: op, pos: op.Pos, main: main})
			}
		}
		if g := op.Grant(); g != nil && g.Role { // GRANT role TO grantee: the grantee's member_of
			for _, r := range g.Grantees {
				ix.add("role "+pgsql.QuoteIdent(r), entry{op: op, pos: op.Pos, main: true, cmd: "member"})
			}
		}
		for _, o := range op.Implicit {
			ix.add(objectKey(o), entry{op: op, pos: op.Pos, main: true})
		}
		if d := op.Dynamic(); d != nil {
			for _, o := range d.Creates {
				ix.add(objectKey(o), entry{op: op, pos: op.Pos, main: true})
			}
		}
		if len(op.Objects) == 1 {
			table := op.Objects[0].Name
			cmds := op.AlterCmds()
			if ct := op.CreateTable(); ct != nil {
				cmds = ct.Elements
			}
			for _, c := range cmds {
				switch c.Action {
				case "AddColumn", "Column":
					ix.add("column "+table.String()+"."+pgsql.QuoteIdent(c.Name), entry{op: op, pos: c.Pos, main: true, cmd: c.Action})
				case "AddConstraint", "Constraint":
					ix.add("constraint "+pgsql.QuoteIdent(c.Name)+" on "+table.String(), entry{op: op, pos: c.Pos, main: true, cmd: c.Action})
				}
			}
		}
	}
	return ix
}

func (ix *Index) add(key string, e entry) { ix.byKey[key] = append(ix.byKey[key], e) }

// File is the file's name as positions give it ("" for an index of no file).
func (ix *Index) File() string {
	if ix == nil || ix.file == nil {
		return ""
	}
	return ix.file.Name
}

// Key is the identity of a catalog object, kind and object as introspect names them: tables,
// views, materialized views, foreign tables and sequences share "relation schema.name"; a
// function is "function schema.name/number of arguments" (overloads of one arity are one); an
// operator is "operator schema.name" (its operand types left out, as CREATE OPERATOR writes
// them apart from the name); a cast is "cast (source AS target)" with both types unqualified;
// anything else is "kind object".
func Key(kind, object string) string {
	switch kind {
	case "table", "view", "materialized view", "foreign table", "sequence":
		return "relation " + object
	case "function", "procedure":
		name, args, _ := strings.Cut(object, "(")
		n := 0
		if args = strings.TrimSuffix(args, ")"); strings.TrimSpace(args) != "" {
			n = strings.Count(args, ",") + 1
		}
		return fmt.Sprintf("function %s/%d", name, n)
	case "operator": // "public.===(integer, integer)": every operator of that name is one
		name, _, _ := strings.Cut(object, "(")
		return "operator " + name
	case "cast": // "(integer AS public.mood)": the types without their schemas, as a statement names them
		source, target, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(object, "("), ")"), " AS ")
		return "cast (" + unqualified(source) + " AS " + unqualified(target) + ")"
	}
	return kind + " " + object
}

// unqualified is a type as format_type prints it without its schema: "mood" of "public.mood",
// "\"My Type\"[]" of "app.\"My Type\"[]".
func unqualified(t string) string {
	quoted := false
	for i := len(t) - 1; i >= 0; i-- {
		switch t[i] {
		case '"':
			quoted = !quoted
		case '.':
			if !quoted {
				return t[i+1:]
			}
		}
	}
	return t
}

// objectKey is [Key] of an object a statement names.
func objectKey(o pgsql.Object) string {
	switch o.Kind {
	case pgsql.KindOperator, pgsql.KindCast:
		return Key(string(o.Kind), strings.TrimPrefix(o.String(), string(o.Kind)+" "))
	case pgsql.KindFunction, pgsql.KindProcedure:
		if !o.HasArgs {
			return functionName(o.Name)
		}
		return fmt.Sprintf("function %s/%d", o.Name, len(o.Args))
	case pgsql.KindPolicy, pgsql.KindTrigger, pgsql.KindRule, pgsql.KindConstraint:
		return string(o.Kind) + " " + pgsql.QuoteIdent(o.Name.Name) + " on " + o.Table.String()
	case pgsql.KindColumn:
		return "column " + o.Table.String() + "." + pgsql.QuoteIdent(o.Name.Name)
	}
	return Key(string(o.Kind), o.Name.String())
}

// functionName is the key of a function named without an argument list (GRANT ... ON FUNCTION
// f), which stands for every overload.
func functionName(n pgsql.Name) string { return "function " + n.String() }

// overloads is the key of every statement naming one of a function's overloads with its
// argument list: what a call may reach.
func overloads(n pgsql.Name) string { return "overloads " + n.String() }

// Statement returns the position of the statement that gave the object its attribute attr (a
// fact's attribute, as in a difference: "acl:anon", "rls", "comment", "owner", "body"), or, for
// attr "" and when no statement sets that attribute, the statement that created it. An object
// the file only attaches things to (a column added, a trigger created on a table it did not
// create) is found at that statement. It reports false when no statement of the file names the
// object, nor SQL built at run time that mentions its name.
func (ix *Index) Statement(kind, object, attr string) (finding.Position, bool) {
	pos, _, ok := ix.find(kind, object, attr)
	return pos, ok
}

// Setter returns the position of the statement that set the object's attribute attr, when one
// does: a GRANT or REVOKE to the role of "acl:ROLE", the ALTER of "rls", the COMMENT of
// "comment"; unlike [Index.Statement], not the statement that created the object.
func (ix *Index) Setter(kind, object, attr string) (finding.Position, bool) {
	pos, exact, ok := ix.find(kind, object, attr)
	return pos, ok && exact
}

// find is [Index.Statement], and whether the statement found set attr itself.
func (ix *Index) find(kind, object, attr string) (pos finding.Position, exact, ok bool) {
	if ix == nil || ix.file == nil {
		return finding.Position{}, false, false
	}
	es := ix.byKey[Key(kind, object)]
	if kind == "function" || kind == "procedure" {
		name, _, _ := strings.Cut(object, "(")
		es = append(slices.Clip(es), ix.byKey["function "+name]...) // and what names every overload
		slices.SortStableFunc(es, func(a, b entry) int { return a.op.Start - b.op.Start })
	}
	if len(es) == 0 && kind == "index" {
		es = ix.unnamedIndex(object)
	}
	if len(es) == 0 && (kind == "column" || kind == "constraint") {
		if t := tableOf(kind, object); t != "" {
			es = ix.byKey[Key("table", t)]
		}
	}
	if e, exact, ok := pick(es, attr); ok {
		return e.pos, exact, true
	}
	pos, ok = ix.dynamic(object)
	return pos, false, ok
}

// pick chooses among the statements naming an object the one that set attr: the last GRANT or
// REVOKE to the role of an acl, the last ALTER that sets row level security or the owner, the
// last COMMENT; else the last statement that created it, else the last that altered it, else the
// first that names it.
func pick(es []entry, attr string) (e entry, exact, ok bool) {
	last := func(match func(entry) bool) (entry, bool) {
		for i := len(es) - 1; i >= 0; i-- {
			if es[i].main && match(es[i]) {
				return es[i], true
			}
		}
		return entry{}, false
	}
	var set func(entry) bool
	switch {
	case attr == "member_of":
		set = func(e entry) bool { return e.cmd == "member" }
	case strings.HasPrefix(attr, "acl:"):
		role := strings.TrimPrefix(attr, "acl:")
		set = func(e entry) bool {
			g := e.op.Grant()
			if g == nil || g.Role || g.Defaults {
				return false
			}
			for _, r := range g.Grantees {
				if r == role || pgsql.QuoteIdent(r) == role {
					return true
				}
			}
			return false
		}
	case attr == "rls" || attr == "force_rls" || attr == "owner":
		action := map[string]string{"rls": "RowSecurity", "force_rls": "ForceRowSecurity", "owner": "ChangeOwner"}[attr]
		set = func(e entry) bool {
			for _, c := range e.op.AlterCmds() {
				if strings.Contains(c.Action, action) {
					return true
				}
			}
			return attr == "owner" && strings.Contains(e.op.Tag, "OWNER")
		}
	case attr == "comment":
		set = func(e entry) bool { return e.op.Verb == pgsql.VerbComment }
	case alteredBy(attr) != "":
		tag := alteredBy(attr)
		set = func(e entry) bool { return e.op.Verb == pgsql.VerbAlter && e.op.Tag == tag }
	}
	if set != nil {
		if e, ok := last(set); ok {
			return e, true, true
		}
	}
	for _, v := range []pgsql.Verb{pgsql.VerbCreate, pgsql.VerbAlter, pgsql.VerbRename} {
		if e, ok := last(func(e entry) bool {
			return e.cmd != "member" && (e.op.Verb == v || e.cmd != "" && v == pgsql.VerbCreate)
		}); ok {
			return e, false, true
		}
	}
	if len(es) > 0 {
		return es[0], false, true
	}
	return entry{}, false, false
}

// alteredBy returns the tag of the ALTER statement that sets attr of an object of the catalog
// family (an event trigger's enabled state, a statistics object's target, a text search
// configuration's mapping, an operator's estimators, what a publication publishes), or "".
func alteredBy(attr string) string {
	name, _, _ := strings.Cut(attr, ":")
	switch name {
	case "enabled":
		return "ALTER EVENT TRIGGER" // a table trigger's is ALTER TABLE's, which no entry of it has this tag
	case "target":
		return "ALTER STATISTICS"
	case "mapping":
		return "ALTER TEXT SEARCH CONFIGURATION"
	case "restrict", "join", "commutator", "negator", "hashes", "merges":
		return "ALTER OPERATOR"
	case "publish", "via_root", "table", "schema":
		return "ALTER PUBLICATION"
	}
	return ""
}

// unnamedIndex returns the CREATE INDEX statements without a name whose index the server may
// have named object: its table's name, an underscore and more ("t_tag_idx1" for an index on
// t), in the table's schema.
func (ix *Index) unnamedIndex(object string) []entry {
	schema, _, _ := strings.Cut(object, ".")
	name := lastName(object)
	var out []entry
	for _, e := range ix.unnamed {
		t := e.op.Objects[0].Table
		if pgsql.QuoteIdent(t.Schema) == schema && strings.HasPrefix(name, t.Name+"_") {
			out = append(out, e)
		}
	}
	return out
}

// BuiltAtRunTime returns the position of the first EXECUTE of SQL built at run time that mentions
// the object's name (its last part: "p" of "p on public.t"), else of the first such EXECUTE:
// where a finding on an object that SQL built at run time made or changed points. It reports
// false when the file runs no SQL built at run time.
func (ix *Index) BuiltAtRunTime(object string) (finding.Position, bool) {
	if pos, ok := ix.dynamic(object); ok {
		return pos, true
	}
	if ix == nil || ix.file == nil {
		return finding.Position{}, false
	}
	for i := range ix.file.Ops {
		if d := ix.file.Ops[i].Dynamic(); d != nil && !d.Literal {
			return ix.file.Ops[i].Pos, true
		}
	}
	return finding.Position{}, false
}

// dynamic finds the first EXECUTE of SQL built at run time that mentions the object's name.
func (ix *Index) dynamic(object string) (finding.Position, bool) {
	name := strings.ToLower(lastName(object))
	if name == "" {
		return finding.Position{}, false
	}
	for i := range ix.file.Ops {
		op := &ix.file.Ops[i]
		if d := op.Dynamic(); d != nil && !d.Literal && strings.Contains(strings.ToLower(d.SQL), name) {
			return op.Pos, true
		}
	}
	return finding.Position{}, false
}

// Reader returns the position of the statement that created what a query reads: the first of
// funcs the file creates, else the first of rels (a name without a schema is looked up in
// public), with the object found ("function public.f", "view public.v").
func (ix *Index) Reader(funcs, rels []pgsql.Name) (finding.Position, string, bool) {
	if ix == nil || ix.file == nil {
		return finding.Position{}, "", false
	}
	qualified := func(n pgsql.Name) pgsql.Name {
		if n.Schema == "" {
			n.Schema = "public"
		}
		return n
	}
	for _, f := range funcs {
		n := qualified(f)
		if e, _, ok := pick(ix.byKey[overloads(n)], ""); ok {
			return e.pos, "function " + n.String(), true
		}
	}
	for _, r := range rels {
		n := qualified(r)
		if e, _, ok := pick(ix.byKey[Key("table", n.String())], ""); ok {
			kind := "table"
			if o := e.op.Object(); o.Kind != "" && o.Name == n {
				kind = string(o.Kind)
			}
			return e.pos, kind + " " + n.String(), true
		}
	}
	return finding.Position{}, "", false
}

// Changer returns the statement of the file that most likely changes the rows of table when
// the file runs again: a DROP or TRUNCATE, an UPDATE or DELETE without WHERE, an INSERT, an UPDATE or
// DELETE with WHERE of it run by the file (top level, a DO block), in that order, else a trigger created on it, else a statement in a function body that writes
// it, else DDL on it (ALTER, then CREATE); with a description ("UPDATE of public.t").
func (ix *Index) Changer(table string) (finding.Position, string, bool) {
	if ix == nil || ix.file == nil {
		return finding.Position{}, "", false
	}
	// writes ranks a statement that writes rows: 3 for one that changes every row again, 1 for
	// one whose WHERE may find nothing to do the second time, 0 for one that does not write.
	writes := func(op *pgsql.Op) int {
		switch op.Verb {
		case pgsql.VerbTruncate, pgsql.VerbDrop: // a DROP of the table itself (see on)
			return 3
		case pgsql.VerbUpdate, pgsql.VerbDelete:
			if op.HasWhere() {
				return 1
			}
			return 3
		case pgsql.VerbInsert, pgsql.VerbCopy:
			return 2
		}
		return 0
	}
	on := func(op *pgsql.Op, kind pgsql.ObjKind) bool {
		for _, o := range op.Objects {
			if (kind == "" || o.Kind == kind) && Key(string(o.Kind), o.Name.String()) == Key("table", table) {
				return true
			}
			if kind == pgsql.KindTrigger && o.Kind == pgsql.KindTrigger && o.Table.String() == table {
				return true
			}
		}
		return false
	}
	rules := []struct {
		match func(*pgsql.Op) bool
		what  string
	}{
		{func(op *pgsql.Op) bool { return op.Context != pgsql.InFunction && writes(op) == 3 && on(op, "") }, "%s of %s"},
		{func(op *pgsql.Op) bool { return op.Context != pgsql.InFunction && writes(op) == 2 && on(op, "") }, "%s into %s"},
		{func(op *pgsql.Op) bool { return op.Context != pgsql.InFunction && writes(op) == 1 && on(op, "") }, "%s of %s"},
		{func(op *pgsql.Op) bool { return op.Verb == pgsql.VerbCreate && on(op, pgsql.KindTrigger) }, "%s on %s"},
		{func(op *pgsql.Op) bool { return op.Context == pgsql.InFunction && writes(op) > 0 && on(op, "") }, "%s of %s in a function body"},
		{func(op *pgsql.Op) bool {
			return op.Context != pgsql.InFunction && op.Verb == pgsql.VerbAlter && on(op, "")
		}, "%s of %s"},
		{func(op *pgsql.Op) bool {
			return op.Context != pgsql.InFunction && op.Verb == pgsql.VerbCreate && on(op, "")
		}, "%s of %s"},
	}
	for _, r := range rules {
		for i := range ix.file.Ops {
			if op := &ix.file.Ops[i]; r.match(op) {
				return op.Pos, fmt.Sprintf(r.what, op.Tag, table), true
			}
		}
	}
	return finding.Position{}, "", false
}

// tableOf returns the table of a column ("public.t.c") or a constraint ("c on public.t").
func tableOf(kind, object string) string {
	if kind == "constraint" {
		if i := strings.LastIndex(object, " on "); i >= 0 {
			return object[i+len(" on "):]
		}
		return ""
	}
	if i := strings.LastIndex(object, "."); i > 0 {
		return object[:i]
	}
	return ""
}

// lastName is the object's own name: "t" of "public.t", "p" of "p on public.t", "f" of
// "public.f(text)", without quotes.
func lastName(object string) string {
	object, _, _ = strings.Cut(object, "(")
	if i := strings.Index(object, " on "); i >= 0 {
		object = object[:i]
	}
	if i := strings.LastIndex(object, "."); i >= 0 {
		object = object[i+1:]
	}
	return strings.Trim(object, `"`)
}

// kinds are the object kinds of introspect (its table of kinds) and of findings (the finer
// kinds statements name), longest first, so that "materialized view x" splits as that kind.
var kinds = func() []string {
	out := []string{string(pgsql.KindMatView), string(pgsql.KindForeignTable), string(pgsql.KindProcedure)}
	for _, k := range introspect.Kinds() {
		out = append(out, k.Name)
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), cmp.Compare(a, b)) })
	return out
}()

// SplitRef splits a finding's object, "kind identity" ("table public.t", "materialized view
// public.m"), into its kind and identity; false when it names no known kind.
func SplitRef(ref string) (kind, object string, ok bool) {
	for _, k := range kinds {
		if rest, found := strings.CutPrefix(ref, k+" "); found {
			return k, rest, true
		}
	}
	return "", "", false
}
