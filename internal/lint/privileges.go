// The static model of effective privileges: for each object the file creates, which roles hold
// which privileges once the file has run, from the default privileges of the environment the
// file installs into (read from internal/scratch/env, the SQL the scratch databases run), the
// file's own ALTER DEFAULT PRIVILEGES, and its GRANTs and REVOKEs in file order. The rules
// security-definer-public-execute and grant-leaves-public read it.

package lint

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch/env"
)

// InstallRole is the role a migration runs as on Supabase, whose default privileges apply to
// the objects it creates.
const InstallRole = "postgres"

// DefaultPrivilege is one entry of the default privileges lint models: what role Grantee
// receives on every object of Kind (table, sequence or function) that the install role
// creates in Schema ("" for every schema).
type DefaultPrivilege struct {
	Schema     string
	Kind       pgsql.ObjKind
	Grantee    string
	Privileges []string
	// Revoke is set for ALTER DEFAULT PRIVILEGES ... REVOKE.
	Revoke bool
}

// allPrivileges are what ALL grants on each kind of object (PostgreSQL 15).
var allPrivileges = map[pgsql.ObjKind][]string{
	pgsql.KindTable:    {"select", "insert", "update", "delete", "truncate", "references", "trigger"},
	pgsql.KindSequence: {"usage", "select", "update"},
	pgsql.KindFunction: {"execute"},
}

// builtinDefaults are PostgreSQL's own defaults (acldefault) for the API roles: EXECUTE on
// functions to PUBLIC; nothing on tables and sequences.
var builtinDefaults = []DefaultPrivilege{{Kind: pgsql.KindFunction, Grantee: "public", Privileges: []string{"execute"}}}

var (
	envDefaultsOnce sync.Once
	envDefaults     []DefaultPrivilege
)

// EnvironmentDefaults returns the default privileges the scratch environment gives objects the
// install role creates, read from its SQL (internal/scratch/env): the model lint applies, which
// a test compares with pg_default_acl of a fresh scratch database.
func EnvironmentDefaults() []DefaultPrivilege {
	envDefaultsOnce.Do(func() { envDefaults = environmentDefaults(mayAlterDefaults) })
	return envDefaults
}

// environmentDefaults reads the default privileges of the environment's statements that parse
// says may be an ALTER DEFAULT PRIVILEGES (every lint call pays for the parse, and the scripts'
// function bodies are most of it). What such a statement sets depends on no other statement.
func environmentDefaults(parse func(sql string) bool) []DefaultPrivilege {
	var out []DefaultPrivilege
	for _, s := range env.Database(InstallRole, "supabase_admin") {
		if !parse(s.SQL) {
			continue
		}
		var stmts []string
		for _, st := range pgsql.Statements(s.SQL) {
			if parse(st) {
				stmts = append(stmts, st)
			}
		}
		f, err := pgsql.Parse(s.Name, []byte(strings.Join(stmts, ";\n")))
		if err != nil {
			panic("lint: the environment's SQL does not parse: " + err.Error()) // a build defect
		}
		for i := range f.Ops {
			out = append(out, defaultsOf(&f.Ops[i])...)
		}
	}
	return out
}

// alterDefaultsRE finds the words of ALTER DEFAULT PRIVILEGES, in a statement or a comment.
var alterDefaultsRE = regexp.MustCompile(`(?i)\balter\s+default\s+privileges\b`)

// mayAlterDefaults reports whether the SQL may hold an ALTER DEFAULT PRIVILEGES statement: the
// expression's words, after a search for the last one in ASCII, which most statements fail
// quickly (the expression folds Unicode too: SQL that is not ASCII goes to it).
func mayAlterDefaults(sql string) bool {
	return (containsASCIIFold(sql, "privileges") || !isASCII(sql)) && alterDefaultsRE.MatchString(sql)
}

// containsASCIIFold reports whether s contains word, a lower-case ASCII word, in any ASCII case.
func containsASCIIFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if s[i]|0x20 == word[0] && asciiEqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

func asciiEqualFold(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// defaultsOf returns the default privileges an ALTER DEFAULT PRIVILEGES op sets for objects the
// install role creates.
func defaultsOf(op *pgsql.Op) []DefaultPrivilege {
	g := op.Grant()
	if g == nil || !g.Defaults || len(g.ForRoles) > 0 && !slices.Contains(g.ForRoles, InstallRole) {
		return nil
	}
	kind := aclKind(g.Target)
	if kind == "" {
		return nil
	}
	privs := expand(kind, g.Privileges)
	var out []DefaultPrivilege
	for _, o := range op.Objects {
		schema := ""
		if o.Kind == pgsql.KindSchema {
			schema = o.Name.Name
		}
		for _, r := range g.Grantees {
			out = append(out, DefaultPrivilege{Schema: schema, Kind: kind, Grantee: r, Privileges: privs, Revoke: op.Verb == pgsql.VerbRevoke})
		}
	}
	return out
}

// aclKind is the kind whose privileges apply to objects of kind k: views, materialized views
// and foreign tables have a table's; procedures a function's. "" for kinds the model ignores.
func aclKind(k pgsql.ObjKind) pgsql.ObjKind {
	switch k {
	case pgsql.KindTable, pgsql.KindView, pgsql.KindMatView, pgsql.KindForeignTable:
		return pgsql.KindTable
	case pgsql.KindSequence:
		return pgsql.KindSequence
	case pgsql.KindFunction, pgsql.KindProcedure:
		return pgsql.KindFunction
	}
	return ""
}

func expand(kind pgsql.ObjKind, privs []string) []string {
	var out []string
	for _, p := range privs {
		if p == "all" {
			out = append(out, allPrivileges[kind]...)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// acl is who holds what on one object: grantee ("public" for PUBLIC) -> privileges.
type acl map[string]map[string]bool

func (a acl) apply(grantees, privs []string, revoke bool) {
	for _, r := range grantees {
		if a[r] == nil {
			a[r] = map[string]bool{}
		}
		for _, p := range privs {
			if revoke {
				delete(a[r], p)
			} else {
				a[r][p] = true
			}
		}
	}
}

// holds reports whether role holds priv directly or through PUBLIC (the API roles are members
// of no other role that holds privileges on the file's objects).
func (a acl) holds(role, priv string) bool {
	return a[role][priv] || a["public"][priv]
}

// privObject is an object the file creates and what the file leaves its privileges as.
type privObject struct {
	obj pgsql.Object
	def *pgsql.Op
	acl acl
	// grants are the file's GRANTs of the privilege named in them to roles other than PUBLIC.
	grants []*pgsql.Op
	// revokedPublic is set once the file revokes something from PUBLIC on it.
	revokedPublic bool
}

// privileges returns (once per pass) the effective privileges of every object the file
// creates, in the order the file creates them.
func (p *Pass) privileges() []*privObject {
	if p.privs != nil {
		return p.privs
	}
	var objs []*privObject
	var fileDefaults []DefaultPrivilege
	find := func(o pgsql.Object, path []string, kind pgsql.ObjKind, allIn bool) []*privObject {
		var out []*privObject
		for _, po := range objs {
			pk := aclKind(po.obj.Kind)
			switch {
			case allIn:
				if pk == kind && po.obj.Name.Schema == o.Name.Name {
					out = append(out, po)
				}
			case pk == aclKind(o.Kind):
				if sameRelation(o, path, po.obj.Name) && (!isFunction(o) || o.SameArgs(po.obj)) {
					out = append(out, po)
				}
			}
		}
		return out
	}
	create := func(o pgsql.Object, op *pgsql.Op) {
		kind := aclKind(o.Kind)
		if kind == "" || p.Own.Existing(o) {
			return
		}
		if got := find(o, nil, kind, false); len(got) > 0 {
			return // CREATE OR REPLACE keeps the privileges
		}
		po := &privObject{obj: o, def: op, acl: acl{}}
		// PostgreSQL's defaults, then the global default privileges; a schema's own default
		// privileges can only add to those.
		all := append(append(append([]DefaultPrivilege{}, builtinDefaults...), EnvironmentDefaults()...), fileDefaults...)
		layer := acl{}
		for _, d := range all {
			switch {
			case d.Kind != kind:
			case d.Schema == "":
				po.acl.apply([]string{d.Grantee}, d.Privileges, d.Revoke)
			case d.Schema == o.Name.Schema:
				layer.apply([]string{d.Grantee}, d.Privileges, d.Revoke)
			}
		}
		for r, ps := range layer {
			for pr := range ps {
				po.acl.apply([]string{r}, []string{pr}, false)
			}
		}
		objs = append(objs, po)
	}
	for _, op := range p.Ops() {
		if op.Context == pgsql.InFunction {
			continue // a function body does not run when the file is installed
		}
		for _, o := range op.Implicit {
			create(o, op)
		}
		g := op.Grant()
		switch {
		case op.Verb == pgsql.VerbCreate && len(op.Objects) > 0:
			create(op.Objects[0], op)
		case op.Verb == pgsql.VerbDrop:
			for _, o := range op.Objects {
				for _, po := range find(o, op.SearchPath, aclKind(o.Kind), false) {
					objs = slices.DeleteFunc(objs, func(x *privObject) bool { return x == po })
				}
			}
		case g != nil && g.Defaults:
			fileDefaults = append(fileDefaults, defaultsOf(op)...)
		case g != nil && !g.Role && (op.Verb == pgsql.VerbGrant || op.Verb == pgsql.VerbRevoke):
			kind := aclKind(g.Target)
			for _, o := range op.Objects {
				for _, po := range find(o, op.SearchPath, kind, g.AllInSchema) {
					privs := expand(aclKind(po.obj.Kind), g.Privileges)
					po.acl.apply(g.Grantees, privs, op.Verb == pgsql.VerbRevoke)
					if op.Verb == pgsql.VerbRevoke && slices.Contains(g.Grantees, "public") {
						po.revokedPublic = true
					}
					if op.Verb == pgsql.VerbGrant && !slices.Contains(g.Grantees, "public") {
						po.grants = append(po.grants, op)
					}
				}
			}
		}
	}
	p.privs = objs
	return objs
}

// apiHolders returns the API roles (anon, authenticated) that hold priv on po after the file.
func (po *privObject) apiHolders(priv string) []string {
	var out []string
	for _, r := range []string{"anon", "authenticated"} {
		if po.acl.holds(r, priv) {
			out = append(out, r)
		}
	}
	return out
}

// roleList joins roles for a message: "anon and authenticated".
func roleList(roles []string) string {
	switch len(roles) {
	case 0:
		return ""
	case 1:
		return roles[0]
	}
	return strings.Join(roles[:len(roles)-1], ", ") + " and " + roles[len(roles)-1]
}
