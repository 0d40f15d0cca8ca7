package pgsql

import (
	"errors"
	"fmt"
	"ledgercheck/internal/finding"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// DefaultSearchPath is the search_path lint assumes until the file sets one: PostgreSQL's default
// ("$user", public) with "$user" dropped, since no such schema exists on Supabase.
var DefaultSearchPath = []string{"public"}

// maxDepth bounds the nesting of bodies inside bodies (a DO block that EXECUTEs a CREATE
// FUNCTION whose body ...).
const maxDepth = 8

// analyzer turns the parse trees of a file into [Op]s.
type analyzer struct {
	f     *File
	path  []string
	ops   []Op
	vecs  []VectorType
	probs []Problem
	col   collector
	draft draft
}

// scope is the text a statement was parsed from and how to map it back to the file.
type scope struct {
	src     string    // the text given to the parser
	m       offsetMap // byte offset in src → byte offset in the file
	ctx     Context
	stmt    int
	fn      Name
	depth   int
	collect bool // walk expressions for calls and vector types
}

func (a *analyzer) pos(sc *scope, local int) finding.Position { return a.f.Pos(sc.m(local)) }

// stmt analyses one statement that spans src[start:end] of its scope.
func (a *analyzer) stmt(sc *scope, n *pg_query.Node, start, end int) {
	if n == nil {
		return
	}
	// The op is drafted in a.draft, which the statements of its body reuse once it is finished.
	op := &a.draft
	*op = draft{Op: Op{Stmt: sc.stmt, Start: sc.m(start), Verb: VerbOther}, Detail: Detail{Context: sc.ctx, SearchPath: a.path, Function: sc.fn}}
	op.Pos = a.f.Pos(op.Start)
	op.at = op.Pos
	var body func()
	switch s := n.Node.(type) {
	case *pg_query.Node_CreateStmt:
		x := s.CreateStmt
		op.Verb, op.Tag, op.IfNotExists = VerbCreate, "CREATE TABLE", x.IfNotExists
		op.Objects = []Object{a.rel(sc, KindTable, x.Relation, op.Pos)}
	case *pg_query.Node_CreateTableAsStmt:
		x := s.CreateTableAsStmt
		kind := KindTable
		op.Tag = "CREATE TABLE AS"
		if x.Objtype == pg_query.ObjectType_OBJECT_MATVIEW {
			kind, op.Tag = KindMatView, "CREATE MATERIALIZED VIEW"
		}
		op.Verb, op.IfNotExists = VerbCreate, x.IfNotExists
		if x.Into != nil {
			op.Objects = []Object{a.rel(sc, kind, x.Into.Rel, op.Pos)}
		}
	case *pg_query.Node_SelectStmt:
		op.Verb, op.Tag = VerbSelect, "SELECT"
		if into := s.SelectStmt.IntoClause; into != nil {
			op.Verb, op.Tag = VerbCreate, "SELECT INTO"
			op.Objects = []Object{a.rel(sc, KindTable, into.Rel, op.Pos)}
		}
	case *pg_query.Node_ViewStmt:
		x := s.ViewStmt
		op.Verb, op.Tag, op.OrReplace = VerbCreate, "CREATE VIEW", x.Replace
		op.Objects = []Object{a.rel(sc, KindView, x.View, op.Pos)}
	case *pg_query.Node_CreateFunctionStmt:
		body = a.createFunction(sc, s.CreateFunctionStmt, op, start, end)
	case *pg_query.Node_DoStmt:
		op.Verb, op.Tag = VerbDo, "DO"
		body = a.doBlock(sc, s.DoStmt, op, start, end)
	case *pg_query.Node_IndexStmt:
		x := s.IndexStmt
		op.Verb, op.Tag, op.IfNotExists, op.Concurrently = VerbCreate, "CREATE INDEX", x.IfNotExists, x.Concurrent
		tbl := a.rel(sc, KindTable, x.Relation, op.Pos)
		op.Objects = []Object{{Kind: KindIndex, Name: Name{tbl.Name.Schema, x.Idxname}, Table: tbl.Name, Qualified: tbl.Qualified, Pos: tbl.Pos}, tbl}
		op.at = tbl.Pos
	case *pg_query.Node_CreateSchemaStmt:
		x := s.CreateSchemaStmt
		op.Verb, op.Tag, op.IfNotExists = VerbCreate, "CREATE SCHEMA", x.IfNotExists
		op.Objects = []Object{{Kind: KindSchema, Name: Name{Name: x.Schemaname}, Qualified: true, Pos: op.Pos}}
		if len(x.SchemaElts) > 0 {
			body = func() {
				saved := a.path
				a.path = []string{x.Schemaname}
				for _, e := range x.SchemaElts {
					a.stmt(&scope{src: sc.src, m: sc.m, ctx: sc.ctx, stmt: sc.stmt, fn: sc.fn, depth: sc.depth}, e, start, end)
				}
				a.path = saved
			}
		}
	case *pg_query.Node_CreateExtensionStmt:
		x := s.CreateExtensionStmt
		op.Verb, op.Tag, op.IfNotExists = VerbCreate, "CREATE EXTENSION", x.IfNotExists
		op.Objects = []Object{{Kind: KindExtension, Name: Name{Name: x.Extname}, Qualified: true, Pos: op.Pos}}
	case *pg_query.Node_AlterExtensionStmt:
		op.Verb, op.Tag = VerbAlter, "ALTER EXTENSION"
		op.Objects = []Object{{Kind: KindExtension, Name: Name{Name: s.AlterExtensionStmt.Extname}, Qualified: true, Pos: op.Pos}}
	case *pg_query.Node_CreatePolicyStmt:
		x := s.CreatePolicyStmt
		op.Verb, op.Tag = VerbCreate, "CREATE POLICY"
		tbl := a.rel(sc, KindTable, x.Table, op.Pos)
		op.Objects = []Object{{Kind: KindPolicy, Name: Name{Name: x.PolicyName}, Table: tbl.Name, Qualified: tbl.Qualified, Pos: tbl.Pos}, tbl}
		op.Roles = roleNames(x.Roles)
		op.at = tbl.Pos
	case *pg_query.Node_AlterPolicyStmt:
		x := s.AlterPolicyStmt
		op.Verb, op.Tag = VerbAlter, "ALTER POLICY"
		tbl := a.rel(sc, KindTable, x.Table, op.Pos)
		op.Objects = []Object{{Kind: KindPolicy, Name: Name{Name: x.PolicyName}, Table: tbl.Name, Qualified: tbl.Qualified, Pos: tbl.Pos}}
		op.Roles = roleNames(x.Roles)
		op.at = tbl.Pos
	case *pg_query.Node_CreateTrigStmt:
		x := s.CreateTrigStmt
		op.Verb, op.Tag, op.OrReplace = VerbCreate, "CREATE TRIGGER", x.Replace
		tbl := a.rel(sc, KindTable, x.Relation, op.Pos)
		op.Objects = []Object{{Kind: KindTrigger, Name: Name{Name: x.Trigname}, Table: tbl.Name, Qualified: tbl.Qualified, Pos: tbl.Pos}, tbl}
		op.at = tbl.Pos
	case *pg_query.Node_RuleStmt:
		x := s.RuleStmt
		op.Verb, op.Tag, op.OrReplace = VerbCreate, "CREATE RULE", x.Replace
		tbl := a.rel(sc, KindTable, x.Relation, op.Pos)
		op.Objects = []Object{{Kind: KindRule, Name: Name{Name: x.Rulename}, Table: tbl.Name, Qualified: tbl.Qualified, Pos: tbl.Pos}, tbl}
		op.at = tbl.Pos
	case *pg_query.Node_CreateSeqStmt:
		x := s.CreateSeqStmt
		op.Verb, op.Tag, op.IfNotExists = VerbCreate, "CREATE SEQUENCE", x.IfNotExists
		op.Objects = []Object{a.rel(sc, KindSequence, x.Sequence, op.Pos)}
	case *pg_query.Node_AlterSeqStmt:
		x := s.AlterSeqStmt
		op.Verb, op.Tag, op.IfExists = VerbAlter, "ALTER SEQUENCE", x.MissingOk
		op.Objects = []Object{a.rel(sc, KindSequence, x.Sequence, op.Pos)}
	case *pg_query.Node_CompositeTypeStmt:
		op.Verb, op.Tag = VerbCreate, "CREATE TYPE"
		op.Objects = []Object{a.rel(sc, KindType, s.CompositeTypeStmt.Typevar, op.Pos)}
	case *pg_query.Node_CreateEnumStmt:
		op.Verb, op.Tag = VerbCreate, "CREATE TYPE"
		op.Objects = []Object{a.listObj(KindType, strs(s.CreateEnumStmt.TypeName), op.Pos)}
	case *pg_query.Node_CreateRangeStmt:
		op.Verb, op.Tag = VerbCreate, "CREATE TYPE"
		op.Objects = []Object{a.listObj(KindType, strs(s.CreateRangeStmt.TypeName), op.Pos)}
	case *pg_query.Node_CreateDomainStmt:
		op.Verb, op.Tag = VerbCreate, "CREATE DOMAIN"
		op.Objects = []Object{a.listObj(KindType, strs(s.CreateDomainStmt.Domainname), op.Pos)}
	case *pg_query.Node_DefineStmt:
		x := s.DefineStmt
		kind := kindOf(x.Kind)
		op.Verb, op.Tag, op.IfNotExists, op.OrReplace = VerbCreate, "CREATE "+strings.ToUpper(string(kind)), x.IfNotExists, x.Replace
		op.Objects = []Object{a.listObj(kind, strs(x.Defnames), op.Pos)}
	case *pg_query.Node_AlterEnumStmt:
		op.Verb, op.Tag = VerbAlter, "ALTER TYPE"
		op.Objects = []Object{a.listObj(KindType, strs(s.AlterEnumStmt.TypeName), op.Pos)}
	case *pg_query.Node_AlterTableStmt:
		a.alterTable(sc, s.AlterTableStmt, op)
	case *pg_query.Node_RenameStmt:
		a.rename(sc, s.RenameStmt, op)
	case *pg_query.Node_AlterObjectSchemaStmt:
		x := s.AlterObjectSchemaStmt
		kind := kindOf(x.ObjectType)
		op.Verb, op.Tag, op.IfExists = VerbAlter, "ALTER "+strings.ToUpper(string(kind))+" SET SCHEMA", x.MissingOk
		op.Objects = []Object{a.target(sc, kind, x.Relation, x.Object, op.Pos)}
		op.at = op.Objects[0].Pos
	case *pg_query.Node_AlterOwnerStmt:
		x := s.AlterOwnerStmt
		kind := kindOf(x.ObjectType)
		op.Verb, op.Tag = VerbAlter, "ALTER "+strings.ToUpper(string(kind))+" OWNER"
		op.Objects = []Object{a.target(sc, kind, x.Relation, x.Object, op.Pos)}
		op.at = op.Objects[0].Pos
	case *pg_query.Node_AlterFunctionStmt:
		x := s.AlterFunctionStmt
		kind := kindOf(x.Objtype)
		op.Verb, op.Tag = VerbAlter, "ALTER "+strings.ToUpper(string(kind))
		if x.Func != nil {
			op.Objects = []Object{a.listObj(kind, strs(x.Func.Objname), op.Pos)}
		}
		for _, act := range x.Actions {
			if d := act.GetDefElem(); d != nil && d.Defname == "set" {
				if vs := d.Arg.GetVariableSetStmt(); vs != nil && strings.EqualFold(vs.Name, "search_path") {
					op.Func = &Function{PinnedPath: vs.Kind == pg_query.VariableSetKind_VAR_SET_VALUE, SearchPath: setValues(vs)}
				}
			}
		}
	case *pg_query.Node_DropStmt:
		x := s.DropStmt
		kind := kindOf(x.RemoveType)
		op.Verb, op.Tag, op.IfExists, op.Concurrently = VerbDrop, "DROP "+strings.ToUpper(string(kind)), x.MissingOk, x.Concurrent
		for _, o := range x.Objects {
			op.Objects = append(op.Objects, a.objOf(sc, kind, o, op.Pos))
		}
	case *pg_query.Node_TruncateStmt:
		op.Verb, op.Tag = VerbTruncate, "TRUNCATE"
		for _, r := range s.TruncateStmt.Relations {
			op.Objects = append(op.Objects, a.rel(sc, KindTable, r.GetRangeVar(), op.Pos))
		}
		if len(op.Objects) > 0 {
			op.at = op.Objects[0].Pos
		}
	case *pg_query.Node_CommentStmt:
		x := s.CommentStmt
		kind := kindOf(x.Objtype)
		op.Verb, op.Tag = VerbComment, "COMMENT ON "+strings.ToUpper(string(kind))
		op.Objects = []Object{a.objOf(sc, kind, x.Object, op.Pos)}
	case *pg_query.Node_GrantStmt:
		a.grant(sc, s.GrantStmt, op)
	case *pg_query.Node_AlterDefaultPrivilegesStmt:
		x := s.AlterDefaultPrivilegesStmt
		if x.Action != nil {
			a.grant(sc, x.Action, op)
		}
		op.Tag = "ALTER DEFAULT PRIVILEGES"
		op.Grant.Defaults = true
		op.Objects = nil
		for _, o := range x.Options {
			if d := o.GetDefElem(); d != nil && d.Defname == "schemas" {
				for _, sn := range strs(d.Arg.GetList().GetItems()) {
					op.Objects = append(op.Objects, Object{Kind: KindSchema, Name: Name{Name: sn}, Qualified: true, Pos: op.Pos})
				}
			}
		}
		if len(op.Objects) == 0 {
			op.Objects = []Object{{Kind: "default privileges", Name: Name{Name: "all schemas"}, Qualified: true, Pos: op.Pos}}
		}
	case *pg_query.Node_GrantRoleStmt:
		x := s.GrantRoleStmt
		op.Verb, op.Tag = VerbRevoke, "REVOKE ROLE"
		if x.IsGrant {
			op.Verb, op.Tag = VerbGrant, "GRANT ROLE"
		}
		op.Grant = &Grant{Role: true, Grantees: roleNames(x.GranteeRoles)}
		for _, r := range x.GrantedRoles {
			if ap := r.GetAccessPriv(); ap != nil {
				op.Objects = append(op.Objects, Object{Kind: KindRole, Name: Name{Name: ap.PrivName}, Qualified: true, Pos: op.Pos})
			}
		}
	case *pg_query.Node_CreateRoleStmt:
		op.Verb, op.Tag = VerbCreate, "CREATE ROLE"
		op.Objects = []Object{{Kind: KindRole, Name: Name{Name: s.CreateRoleStmt.Role}, Qualified: true, Pos: op.Pos}}
	case *pg_query.Node_AlterRoleStmt:
		op.Verb, op.Tag = VerbAlter, "ALTER ROLE"
		op.Objects = []Object{{Kind: KindRole, Name: Name{Name: roleName(s.AlterRoleStmt.Role)}, Qualified: true, Pos: op.Pos}}
	case *pg_query.Node_DropRoleStmt:
		op.Verb, op.Tag, op.IfExists = VerbDrop, "DROP ROLE", s.DropRoleStmt.MissingOk
		for _, r := range roleNames(s.DropRoleStmt.Roles) {
			op.Objects = append(op.Objects, Object{Kind: KindRole, Name: Name{Name: r}, Qualified: true, Pos: op.Pos})
		}
	case *pg_query.Node_NotifyStmt:
		op.Verb, op.Tag, op.Channel, op.Payload = VerbNotify, "NOTIFY", s.NotifyStmt.Conditionname, s.NotifyStmt.Payload
	case *pg_query.Node_TransactionStmt:
		switch s.TransactionStmt.Kind {
		case pg_query.TransactionStmtKind_TRANS_STMT_BEGIN, pg_query.TransactionStmtKind_TRANS_STMT_START:
			op.Verb, op.Tag = VerbBegin, "BEGIN"
		case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT:
			op.Verb, op.Tag = VerbCommit, "COMMIT"
		case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK:
			op.Verb, op.Tag = VerbRollback, "ROLLBACK"
		default:
			op.Tag = strings.TrimPrefix(s.TransactionStmt.Kind.String(), "TRANS_STMT_")
		}
	case *pg_query.Node_VariableSetStmt:
		a.set(s.VariableSetStmt, op)
	case *pg_query.Node_DeleteStmt:
		x := s.DeleteStmt
		op.Verb, op.Tag, op.HasWhere = VerbDelete, "DELETE", x.WhereClause != nil
		op.Objects = []Object{a.rel(sc, KindTable, x.Relation, op.Pos)}
	case *pg_query.Node_UpdateStmt:
		x := s.UpdateStmt
		op.Verb, op.Tag, op.HasWhere = VerbUpdate, "UPDATE", x.WhereClause != nil
		op.Objects = []Object{a.rel(sc, KindTable, x.Relation, op.Pos)}
	case *pg_query.Node_InsertStmt:
		op.Verb, op.Tag = VerbInsert, "INSERT"
		op.Objects = []Object{a.rel(sc, KindTable, s.InsertStmt.Relation, op.Pos)}
	case *pg_query.Node_CopyStmt:
		x := s.CopyStmt
		op.Verb, op.Tag = VerbCopy, "COPY"
		op.Copy = &Copy{From: x.IsFrom, Program: x.IsProgram, File: x.Filename}
		if x.Relation != nil {
			op.Objects = []Object{a.rel(sc, KindTable, x.Relation, op.Pos)}
		}
	case *pg_query.Node_AlterSystemStmt:
		op.Verb, op.Tag = VerbAlterSystem, "ALTER SYSTEM"
		if x := s.AlterSystemStmt.Setstmt; x != nil {
			op.Setting = strings.ToLower(x.Name)
		}
	case *pg_query.Node_CreatePlangStmt:
		x := s.CreatePlangStmt
		op.Verb, op.Tag, op.OrReplace = VerbCreate, "CREATE LANGUAGE", x.Replace
		op.Objects = []Object{{Kind: KindLanguage, Name: Name{Name: x.Plname}, Qualified: true, Pos: op.Pos}}
	case *pg_query.Node_CallStmt:
		op.Verb, op.Tag = VerbCall, "CALL"
	case *pg_query.Node_ReindexStmt:
		op.Tag = "REINDEX"
		for _, p := range s.ReindexStmt.Params {
			if d := p.GetDefElem(); d != nil && d.Defname == "concurrently" {
				op.Concurrently = true
			}
		}
	default:
		op.Tag = strings.ToUpper(strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", n.Node), "*pg_query.Node_"), "Stmt"))
	}
	if sc.collect {
		a.collect(sc, n.ProtoReflect(), op)
	}
	a.ops = append(a.ops, op.finish())
	if body != nil && sc.depth < maxDepth {
		n := len(a.ops)
		saved := a.path
		body()
		a.path = saved
		sortOps(a.ops[n:])
	}
}

// rel converts a RangeVar to an object, resolving an unqualified name through the search_path.
func (a *analyzer) rel(sc *scope, kind ObjKind, rv *pg_query.RangeVar, at finding.Position) Object {
	if rv == nil {
		return Object{Kind: kind, Pos: at}
	}
	n, q := a.resolve(rv.Schemaname, rv.Relname)
	pos := at
	if rv.Location >= 0 {
		pos = a.pos(sc, int(rv.Location))
	}
	return Object{Kind: kind, Name: n, Qualified: q, Pos: pos}
}

func (a *analyzer) resolve(schema, name string) (Name, bool) {
	if schema != "" {
		return Name{schema, name}, true
	}
	first := "public"
	if len(a.path) > 0 {
		first = a.path[0]
	}
	return Name{first, name}, false
}

// listObj converts a dotted name ([catalog.][schema.]name) to an object.
func (a *analyzer) listObj(kind ObjKind, parts []string, at finding.Position) Object {
	if len(parts) == 0 {
		return Object{Kind: kind, Pos: at}
	}
	if !schemaScoped(kind) {
		return Object{Kind: kind, Name: Name{Name: parts[len(parts)-1]}, Qualified: true, Pos: at}
	}
	schema := ""
	if len(parts) >= 2 {
		schema = parts[len(parts)-2]
	}
	n, q := a.resolve(schema, parts[len(parts)-1])
	return Object{Kind: kind, Name: n, Qualified: q, Pos: at}
}

func schemaScoped(k ObjKind) bool {
	switch k {
	case KindSchema, KindExtension, KindLanguage, KindRole, "database", "event trigger", "publication", "subscription", "foreign data wrapper", "foreign server", "tablespace", "access method":
		return false
	}
	return true
}

// target converts the Relation-or-Object pair of several ALTER statements.
func (a *analyzer) target(sc *scope, kind ObjKind, rv *pg_query.RangeVar, obj *pg_query.Node, at finding.Position) Object {
	if rv != nil {
		return a.rel(sc, kind, rv, at)
	}
	return a.objOf(sc, kind, obj, at)
}

// objOf converts the object node of DROP, COMMENT, GRANT and ALTER statements.
func (a *analyzer) objOf(sc *scope, kind ObjKind, n *pg_query.Node, at finding.Position) Object {
	if n == nil {
		return Object{Kind: kind, Pos: at}
	}
	switch x := n.Node.(type) {
	case *pg_query.Node_List:
		parts := strs(x.List.Items)
		if kind.OnTable() && len(parts) >= 2 {
			tbl := a.listObj(KindTable, parts[:len(parts)-1], at)
			return Object{Kind: kind, Name: Name{Name: parts[len(parts)-1]}, Table: tbl.Name, Qualified: tbl.Qualified, Pos: at}
		}
		return a.listObj(kind, parts, at)
	case *pg_query.Node_String_:
		return a.listObj(kind, []string{x.String_.Sval}, at)
	case *pg_query.Node_ObjectWithArgs:
		return a.listObj(kind, strs(x.ObjectWithArgs.Objname), at)
	case *pg_query.Node_TypeName:
		pos := at
		if x.TypeName.Location >= 0 {
			pos = a.pos(sc, int(x.TypeName.Location))
		}
		return a.listObj(kind, strs(x.TypeName.Names), pos)
	case *pg_query.Node_RangeVar:
		return a.rel(sc, kind, x.RangeVar, at)
	}
	return Object{Kind: kind, Pos: at}
}

func (a *analyzer) alterTable(sc *scope, x *pg_query.AlterTableStmt, op *draft) {
	kind := kindOf(x.Objtype)
	op.Verb, op.Tag, op.IfExists = VerbAlter, "ALTER "+strings.ToUpper(string(kind)), x.MissingOk
	tbl := a.rel(sc, kind, x.Relation, op.Pos)
	op.Objects = []Object{tbl}
	op.at = tbl.Pos
	for _, c := range x.Cmds {
		ac := c.GetAlterTableCmd()
		if ac == nil {
			continue
		}
		cmd := AlterCmd{Action: strings.TrimPrefix(ac.Subtype.String(), "AT_"), Name: ac.Name, Pos: tbl.Pos}
		switch ac.Subtype {
		case pg_query.AlterTableType_AT_AddColumn:
			cmd.IfNotExists = ac.MissingOk
		default:
			cmd.IfExists = ac.MissingOk
		}
		if cd := ac.Def.GetColumnDef(); cd != nil {
			cmd.Name = cd.Colname
			if cd.Location >= 0 {
				cmd.Pos = a.pos(sc, int(cd.Location))
			}
		}
		if con := ac.Def.GetConstraint(); con != nil {
			if cmd.Name == "" {
				cmd.Name = con.Conname
			}
			if con.Location >= 0 {
				cmd.Pos = a.pos(sc, int(con.Location))
			}
		}
		op.AlterCmds = append(op.AlterCmds, cmd)
	}
}

func (a *analyzer) rename(sc *scope, x *pg_query.RenameStmt, op *draft) {
	kind := kindOf(x.RenameType)
	op.Verb, op.Tag, op.IfExists = VerbRename, "ALTER "+strings.ToUpper(string(kind))+" RENAME", x.MissingOk
	switch {
	case kind.OnTable() && x.Relation != nil:
		tbl := a.rel(sc, KindTable, x.Relation, op.Pos)
		op.Objects = []Object{{Kind: kind, Name: Name{Name: x.Subname}, Table: tbl.Name, Qualified: tbl.Qualified, Pos: tbl.Pos}}
	case kind == KindSchema:
		op.Objects = []Object{{Kind: kind, Name: Name{Name: x.Subname}, Qualified: true, Pos: op.Pos}}
	default:
		op.Objects = []Object{a.target(sc, kind, x.Relation, x.Object, op.Pos)}
	}
	op.at = op.Objects[0].Pos
}

func (a *analyzer) grant(sc *scope, x *pg_query.GrantStmt, op *draft) {
	op.Verb, op.Tag = VerbRevoke, "REVOKE"
	if x.IsGrant {
		op.Verb, op.Tag = VerbGrant, "GRANT"
	}
	g := &Grant{AllInSchema: x.Targtype == pg_query.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA, Grantees: roleNames(x.Grantees)}
	for _, p := range x.Privileges {
		if ap := p.GetAccessPriv(); ap != nil {
			g.Privileges = append(g.Privileges, strings.ToLower(ap.PrivName))
		}
	}
	if len(g.Privileges) == 0 {
		g.Privileges = []string{"all"}
	}
	op.Grant = g
	kind := kindOf(x.Objtype)
	if g.AllInSchema {
		kind = KindSchema
	}
	for _, o := range x.Objects {
		op.Objects = append(op.Objects, a.objOf(sc, kind, o, op.Pos))
	}
}

func (a *analyzer) set(x *pg_query.VariableSetStmt, op *draft) {
	op.Verb, op.Tag, op.Setting = VerbSet, "SET", strings.ToLower(x.Name)
	if x.Kind == pg_query.VariableSetKind_VAR_RESET || x.Kind == pg_query.VariableSetKind_VAR_RESET_ALL {
		op.Tag = "RESET"
	}
	if x.Kind == pg_query.VariableSetKind_VAR_SET_VALUE {
		op.Values = setValues(x)
	}
	if op.Setting == "search_path" || x.Kind == pg_query.VariableSetKind_VAR_RESET_ALL {
		if x.Kind == pg_query.VariableSetKind_VAR_SET_VALUE {
			a.path = searchPath(op.Values)
		} else {
			a.path = DefaultSearchPath
		}
	}
}

// setValues returns the values of SET name = v1, v2, ... as strings.
func setValues(x *pg_query.VariableSetStmt) []string {
	vals := []string{}
	for _, arg := range x.Args {
		if c := arg.GetAConst(); c != nil {
			switch {
			case c.GetSval() != nil:
				vals = append(vals, c.GetSval().Sval)
			case c.GetIval() != nil:
				vals = append(vals, itoa(int(c.GetIval().Ival)))
			case c.GetFval() != nil:
				vals = append(vals, c.GetFval().Fval)
			case c.GetBoolval() != nil:
				vals = append(vals, map[bool]string{true: "on", false: "off"}[c.GetBoolval().Boolval])
			}
		}
	}
	return vals
}

// searchPath turns SET search_path values into the schemas that resolve names. Each value is one
// schema, as the parser folded it: PostgreSQL quotes every element of a list setting, so even
// SET search_path = 'a, b' names a single schema "a, b". "$user" and empty entries are dropped.
func searchPath(vals []string) []string {
	var path []string
	for _, v := range vals {
		if v == "" || v == "$user" {
			continue
		}
		path = append(path, v)
	}
	return path
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b []byte
	for i > 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

func strs(nodes []*pg_query.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

func roleName(r *pg_query.RoleSpec) string {
	if r == nil {
		return ""
	}
	switch r.Roletype {
	case pg_query.RoleSpecType_ROLESPEC_PUBLIC:
		return "public"
	case pg_query.RoleSpecType_ROLESPEC_CSTRING:
		return r.Rolename
	}
	return strings.ToLower(strings.TrimPrefix(r.Roletype.String(), "ROLESPEC_"))
}

func roleNames(nodes []*pg_query.Node) []string {
	var out []string
	for _, n := range nodes {
		if r := n.GetRoleSpec(); r != nil {
			out = append(out, roleName(r))
		}
	}
	return out
}

func kindOf(t pg_query.ObjectType) ObjKind {
	switch t {
	case pg_query.ObjectType_OBJECT_TABLE, pg_query.ObjectType_OBJECT_FOREIGN_TABLE:
		return KindTable
	case pg_query.ObjectType_OBJECT_VIEW:
		return KindView
	case pg_query.ObjectType_OBJECT_MATVIEW:
		return KindMatView
	case pg_query.ObjectType_OBJECT_INDEX:
		return KindIndex
	case pg_query.ObjectType_OBJECT_SEQUENCE:
		return KindSequence
	case pg_query.ObjectType_OBJECT_FUNCTION, pg_query.ObjectType_OBJECT_ROUTINE, pg_query.ObjectType_OBJECT_AGGREGATE:
		return KindFunction
	case pg_query.ObjectType_OBJECT_PROCEDURE:
		return KindProcedure
	case pg_query.ObjectType_OBJECT_SCHEMA:
		return KindSchema
	case pg_query.ObjectType_OBJECT_EXTENSION:
		return KindExtension
	case pg_query.ObjectType_OBJECT_POLICY:
		return KindPolicy
	case pg_query.ObjectType_OBJECT_TRIGGER:
		return KindTrigger
	case pg_query.ObjectType_OBJECT_RULE:
		return KindRule
	case pg_query.ObjectType_OBJECT_TYPE, pg_query.ObjectType_OBJECT_DOMAIN:
		return KindType
	case pg_query.ObjectType_OBJECT_COLUMN:
		return KindColumn
	case pg_query.ObjectType_OBJECT_TABCONSTRAINT:
		return KindConstraint
	case pg_query.ObjectType_OBJECT_LANGUAGE:
		return KindLanguage
	case pg_query.ObjectType_OBJECT_ROLE:
		return KindRole
	}
	return ObjKind(strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(t.String(), "OBJECT_")), "_", " "))
}

// collect walks a statement's tree for function calls and pgvector types.
func (a *analyzer) collect(sc *scope, msg protoreflect.Message, op *draft) {
	c := &a.col
	if c.field == nil {
		c.a, c.field = a, c.visitField // bound once: a method value allocates
	}
	c.sc, c.op = sc, op
	c.walk(msg)
}

// collector is the state of [analyzer.collect]'s walk, kept in the analyzer so that walking a
// message allocates nothing of its own.
type collector struct {
	a     *analyzer
	sc    *scope
	op    *draft
	field func(protoreflect.FieldDescriptor, protoreflect.Value) bool
}

func (c *collector) walk(msg protoreflect.Message) {
	a, sc, op := c.a, c.sc, c.op
	switch x := msg.Interface().(type) {
	case *pg_query.FuncCall:
		if names := strs(x.Funcname); len(names) > 0 {
			call := Call{Name: Name{Name: names[len(names)-1]}, Pos: op.Pos}
			if len(names) >= 2 {
				call.Name.Schema = names[len(names)-2]
			}
			if x.Location >= 0 {
				call.Pos = a.pos(sc, int(x.Location))
			}
			op.Calls = append(op.Calls, call)
		}
	case *pg_query.TypeName:
		a.vectorType(sc, x, op)
	}
	msg.Range(c.field)
}

func (c *collector) visitField(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	if fd.Kind() != protoreflect.MessageKind {
		return true
	}
	if fd.IsList() {
		l := v.List()
		for i := 0; i < l.Len(); i++ {
			c.walk(l.Get(i).Message())
		}
	} else if !fd.IsMap() {
		c.walk(v.Message())
	}
	return true
}

var vectorTypes = map[string]bool{"vector": true, "halfvec": true, "sparsevec": true}

func (a *analyzer) vectorType(sc *scope, x *pg_query.TypeName, op *draft) {
	names := strs(x.Names)
	if len(names) == 0 || !vectorTypes[names[len(names)-1]] || len(x.Typmods) != 1 {
		return
	}
	c := x.Typmods[0].GetAConst()
	if c == nil || c.GetIval() == nil {
		return
	}
	pos := op.Pos
	if c.Location >= 0 {
		pos = a.pos(sc, int(c.Location))
	}
	a.vecs = append(a.vecs, VectorType{Type: names[len(names)-1], Dim: int(c.GetIval().Ival), Pos: pos})
}

// parseNested parses src (a body, a query inside a body, a dynamic SQL string) and analyses its
// statements in a new scope. It returns the parser's error, mapped to the file, if any.
func (a *analyzer) parseNested(parent *scope, src string, m offsetMap, ctx Context, fn Name, collect bool) *Problem {
	tree, err := parse(src, MaxNesting)
	if err != nil {
		p := &Problem{Pos: a.f.Pos(m(0)), Msg: err.Error(), Syntax: true}
		var ne *nestingError
		if errors.As(err, &ne) {
			return &Problem{Pos: a.f.Pos(m(ne.Offset)), Msg: ne.Error(), TooComplex: true}
		}
		var pe *parser.Error
		if errors.As(err, &pe) {
			p.Msg = nearOneLine(pe.Message)
			if pe.Cursorpos > 0 {
				p.Pos = a.f.Pos(m(finding.ByteOffset(src, pe.Cursorpos)))
			}
		}
		return p
	}
	sc := &scope{src: src, m: m, ctx: ctx, stmt: parent.stmt, fn: fn, depth: parent.depth + 1, collect: collect}
	for _, rs := range tree.GetStmts() {
		start := int(rs.GetStmtLocation())
		end := len(src)
		if n := int(rs.GetStmtLen()); n > 0 {
			end = start + n
		}
		start = skipSpaceAndComments(src, start)
		a.stmt(sc, rs.GetStmt(), start, end)
	}
	return nil
}

// sortOps orders ops[from:] by their position in the file, keeping the order of equal ones.
func sortOps(ops []Op) {
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Start < ops[j].Start })
}
