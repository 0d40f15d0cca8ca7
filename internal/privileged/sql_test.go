package privileged_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The construction test of the rule for privileged sessions (docs/architecture.md, "Privileged
// sessions"): every SQL text ledgercheck itself runs on a session with more privilege than the
// migration's install role resolves no name the migration could have defined. It finds that SQL
// by construction, not from a list: every string constant of the non-test Go source that reads
// as SQL (string literals, and concatenations of them with the non-literal parts as
// placeholders, fmt verbs as placeholders), every embedded .sql file, and the SQL in the
// arguments of the catalog queries' template actions. Each is parsed with pg_query, and every
// function call, operator and type name in it must name pg_catalog explicitly; the constructs
// whose operator PostgreSQL looks up by name on the search path, and that cannot be qualified
// (IN lists, NOT IN, LIKE, BETWEEN, IS DISTINCT FROM, NULLIF, a simple CASE, JOIN USING,
// IN (subquery)), are refused, and so is a reg* cast of a literal that does not name its schema.
//
// Policy on relation names: they may stay unqualified (pg_class, pg_roles): every privileged
// session starts with search_path = pg_catalog and never creates a temporary table, so there is
// no pg_temp schema to search before pg_catalog; a relation name runs no code of the migration
// once every function, operator, type and cast in the query is pg_catalog's.
//
// Policy on types: every type name is qualified (pg_catalog.text, pg_catalog.regclass);
// PostgreSQL's keyword types (integer, boolean, varchar, timestamp with time zone, ...) parse as
// pg_catalog's and pass as written.

// privilegedExempt are the SQL sources that do not run on a privileged session, or run where
// the migration cannot have defined anything yet, each with why. The test fails when an entry
// no longer matches any source, so the list cannot outlive what it excuses.
var privilegedExempt = map[string]string{
	// The Open Brain prerequisites run as the install role, the migration's own role.
	"internal/scratch/prereq/10_openbrain_core.sql": "runs as the install role (Database.execPrerequisites)",
	"internal/scratch/prereq/20_agent_memory.sql":   "runs as the install role (Database.execPrerequisites)",
	// The environment runs as the superuser, but only in a database just copied from
	// template0, before any SQL of a prerequisite file or of the migration runs in it, and the
	// roles script in the --dsn maintenance database, where no user SQL ever runs; its sessions
	// start with search_path = pg_catalog all the same.
	"internal/scratch/env/00_roles.sql":             "superuser, before any user SQL, in the maintenance database",
	"internal/scratch/env/10_database.sql":          "superuser, in a database copied from template0 before any user SQL",
	"internal/scratch/env/20_auth_storage.sql":      "superuser, in a database copied from template0 before any user SQL",
	"internal/scratch/env/models/old-defaults.sql":  "superuser, in a template after the environment, before any user SQL",
	"internal/scratch/env/30_supabase_services.sql": "superuser, in a database copied from template0 before any user SQL",
	// The stand-in extensions' scripts run as the superuser (CREATE EXTENSION, or as plain SQL on
	// a --dsn server) in the same place. Their functions run later, on user SQL's sessions: the
	// SECURITY DEFINER ones pin search_path = pg_catalog, pg_temp and qualify every function and
	// operator, which internal/scratch's TestStandInDefinersIgnoreTemporaryTypes checks on the
	// catalog and by attack.
	"internal/scratch/env/ext/pg_cron--1.6.sql":          "CREATE EXTENSION as the superuser before any user SQL; definer bodies pinned (see above)",
	"internal/scratch/env/ext/pg_net--0.20.4.sql":        "CREATE EXTENSION as the superuser before any user SQL; its functions are SECURITY INVOKER",
	"internal/scratch/env/ext/supabase_vault--0.3.1.sql": "CREATE EXTENSION as the superuser before any user SQL; definer bodies pinned (see above)",
	// The installed policies and functions written back from the catalog as SQL for lint's parser
	// (crosscheck.Installed): parsed, never sent to a server.
	"internal/crosscheck/installed.go": "written back from the catalog for the parser; never sent to a server",
	// The rows generated without a fixture are inserted on a session of the install role
	// (rerun's fill, fill.Run on Database.Connect): the migration's own role.
	"internal/fill/run.go": "runs as the install role (fill.Run)",
	// plpgsql_check runs on a session of the install role (the check of the installed bodies),
	// from the schema the check created for it; its other queries name pg_catalog's all the same.
	"internal/bodies/plpgsql.go: SELECT c.oid, c.relid, d.lineno, d.statement, d.sqlstate, d.": "runs as the install role (bodies.checkAll)",
	// The probes' and queries' role switch runs on the install role's session.
	"internal/scratch/query.go: SET LOCAL ROLE ph__": "runs as the install role (QueryRollback)",
	"internal/scratch/query.go: SET ROLE ph__":       "an error message (serverErrorf's what)",
	// Statements spliced from parts checked on their own: role attributes (keywords) and a
	// transaction around SQL built above it; conditions joined.
	"internal/scratch/server.go: CREATE ROLE ph__ ph__ PASSWORD ph__ IN ROLE anon, authentica": "role attribute keywords spliced in; no expression",
	"internal/scratch/server.go: BEGIN;":                                           "wraps the CREATE ROLE above in a transaction",
	"internal/scratch/login.go: CREATE ROLE ph__ ph__ PASSWORD ph__ IN ROLE ph__;": "role attribute keywords spliced in; no expression",
	"internal/scratch/login.go: BEGIN;":                                            "wraps the login role's CREATE ROLE and COMMENT in a transaction",
	"introspect/queries.go: AND":                                                   "joins conditions checked on their own",
	// Text that is not run.
	"internal/audit/rules.go":                  "the rules' explain texts (prose with SQL examples); no query",
	"internal/audit/access.go: WITH CHECK":     "the name of a policy's clause in a finding's detail; no query",
	"internal/observe/findings.go: WITH CHECK": "the name of a policy's clause in a finding's detail; no query",
	// The personas' requests run on the observer's session as anon or authenticated (no
	// privilege): a function argument is cast to its type as PostgREST would cast it.
	"internal/observe/actions.go": "runs as anon or authenticated on the observer's session (observe.Run), as the Data API's requests do",
}

// privilegedSkipDirs are directories of non-test Go source whose SQL never runs in a ledgercheck
// run: helpers of tests only, generators, and the parser (which sends nothing to a server: its
// strings are statement tags and bodies wrapped for pg_query).
var privilegedSkipDirs = []string{"internal/scratch/scratchtest", "internal/pgsql", "internal/cmd", "testdata", "bench"}

// sqlText is one SQL text of the tool's, where it was found, and the parsed statements.
type sqlText struct {
	where string // file (and, for Go, the start of the text)
	sql   string // as checked, placeholders in
	tree  *pg_query.ParseResult
}

// placeholder stands for what Go puts in at run time (a quoted name, an array literal, ...).
const placeholder = "ph__"

var (
	fmtVerb     = regexp.MustCompile(`%(\[\d+\])?[sdvq]`)
	tmplAction  = regexp.MustCompile(`\{\{[^}]*\}\}`)
	tmplArg     = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	sqlKeywords = regexp.MustCompile(`\b(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|GRANT|REVOKE|COMMENT|SET|SHOW|WITH|VALUES|BEGIN|COMMIT|WHERE|FROM|AND|OR|NOT|CASE|ANY|ALL|JOIN)\b`)
	// sqlStart is how a text that must parse starts: a statement, or a fragment of a condition
	// or an expression. Prose with SQL words in it (explain texts, messages) does not parse and
	// does not start so; it is not SQL.
	sqlStart = regexp.MustCompile(`^\s*(SELECT|WITH|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|GRANT|REVOKE|COMMENT ON|SET|SHOW|BEGIN|COMMIT|DO|VALUES|AND|OR|NOT|CASE|COALESCE)\b`)
	// wrappers make a fragment (a condition, a select list, a FROM item) a statement.
	wrappers = []string{"", "SELECT ", "SELECT 1 FROM ph__ WHERE ", "SELECT 1 FROM ph__ WHERE true ", "SELECT 1 FROM ph__ "}
)

// parseFragment parses s as a statement, or as a fragment of one.
// A placeholder that stands for a value (a password, a comment) is tried as a string literal.
func parseFragment(s string) (*pg_query.ParseResult, bool) {
	parts := strings.Split(s, placeholder)
	if len(parts) > 8 {
		parts = []string{s}
	}
	for mask := 0; mask < 1<<(len(parts)-1); mask++ {
		var b strings.Builder
		for i, p := range parts {
			if i > 0 {
				if mask&(1<<(i-1)) != 0 {
					b.WriteString("'" + placeholder + "'")
				} else {
					b.WriteString(placeholder)
				}
			}
			b.WriteString(p)
		}
		for _, w := range wrappers {
			if tree, err := pg_query.Parse(w + b.String()); err == nil {
				return tree, true
			}
		}
	}
	return nil, false
}

// repoRoot is the repository's root, from this package's directory.
const repoRoot = "../.."

// toolSQL returns every SQL text of the tool's own, with the sources that look like SQL but do
// not parse (unparsed), keyed by where.
func toolSQL(t testing.TB) (texts []sqlText, exemptUsed map[string]bool) {
	t.Helper()
	exemptUsed = map[string]bool{}
	var unparsed []string
	talks := map[string]bool{} // directory: its package imports pgx
	add := func(where, sql string, strict bool) {
		file, _, _ := strings.Cut(where, ": ")
		for _, k := range []string{where, file} {
			if _, ok := privilegedExempt[k]; ok {
				exemptUsed[k] = true
				return
			}
		}
		if !sqlKeywords.MatchString(sql) {
			return
		}
		tree, ok := parseFragment(sql)
		if !ok {
			if strict && sqlStart.MatchString(sql) {
				unparsed = append(unparsed, where+": "+sql)
			}
			return
		}
		texts = append(texts, sqlText{where: where, sql: sql, tree: tree})
	}
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || slices.Contains(privilegedSkipDirs, rel) || rel == "migrations" {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(rel, ".sql"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if _, ok := privilegedExempt[rel]; ok {
				exemptUsed[rel] = true
				return nil
			}
			src := string(b)
			// The arguments of template actions are SQL expressions of the query.
			for _, action := range tmplAction.FindAllString(src, -1) {
				for _, m := range tmplArg.FindAllStringSubmatch(action, -1) {
					if arg, err := strconv.Unquote(`"` + m[1] + `"`); err == nil {
						add(rel+": "+action, arg, true)
					}
				}
			}
			sql := tmplAction.ReplaceAllString(src, placeholder)
			tree, err := pg_query.Parse(sql)
			if err != nil {
				t.Errorf("%s: does not parse: %v", rel, err)
				return nil
			}
			texts = append(texts, sqlText{where: rel, sql: sql, tree: tree})
		case strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go"):
			dir := filepath.Dir(path)
			if _, ok := talks[dir]; !ok {
				talks[dir] = importsPgx(t, dir)
			}
			strict := talks[dir]
			goStrings(t, path, rel, func(where, sql string) { add(where, sql, strict) })
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range unparsed {
		t.Errorf("looks like SQL but does not parse even as a fragment (qualify what it does or add it to privilegedExempt with why): %s", u)
	}
	return texts, exemptUsed
}

// importsPgx reports whether a non-test Go file of dir imports pgx: only such a package sends
// SQL to a server. Its SQL-looking strings must parse; elsewhere (lint's messages, the
// parser's statement tags, explain texts) a string that does not parse is prose, and one that
// parses is checked all the same, in case it is handed to a package that sends it.
func importsPgx(t testing.TB, dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			if strings.HasPrefix(im.Path.Value, `"github.com/jackc/pgx/`) {
				return true
			}
		}
	}
	return false
}

// goStrings calls add with every string constant of the Go file: string literals, and each
// maximal concatenation with a string literal in it, its other operands as placeholders.
func goStrings(t testing.TB, path, rel string, add func(where, sql string)) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch e := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.BasicLit:
			if e.Kind == token.STRING {
				if s, err := strconv.Unquote(e.Value); err == nil {
					add(rel+": "+snippet(s), fmtVerb.ReplaceAllString(s, placeholder))
				}
			}
		case *ast.BinaryExpr:
			if e.Op != token.ADD {
				return true
			}
			var b strings.Builder
			lit := false
			var others []ast.Expr
			var fold func(x ast.Expr)
			fold = func(x ast.Expr) {
				switch y := x.(type) {
				case *ast.BinaryExpr:
					if y.Op == token.ADD {
						fold(y.X)
						fold(y.Y)
						return
					}
				case *ast.ParenExpr:
					fold(y.X)
					return
				case *ast.BasicLit:
					if y.Kind == token.STRING {
						if s, err := strconv.Unquote(y.Value); err == nil {
							b.WriteString(s)
							lit = true
							return
						}
					}
				}
				b.WriteString(" " + placeholder + " ")
				others = append(others, x)
			}
			fold(e)
			if !lit {
				return true
			}
			s := b.String()
			add(rel+": "+snippet(s), fmtVerb.ReplaceAllString(s, placeholder))
			for _, o := range others {
				ast.Inspect(o, visit)
			}
			return false
		}
		return true
	}
	ast.Inspect(f, visit)
}

// snippet names a Go string in messages: its first line, shortened.
func snippet(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(fmtVerb.ReplaceAllString(s, placeholder)), "\n")
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

// sqlRefs are the names a SQL text makes the server look up: functions and operators by name,
// types.
type sqlRefs struct {
	funcs, ops, types map[string]bool
}

func newRefs() *sqlRefs {
	return &sqlRefs{funcs: map[string]bool{}, ops: map[string]bool{}, types: map[string]bool{}}
}

// regTypes are the types whose input function looks a name up on the search path.
var regTypes = map[string]bool{"regclass": true, "regtype": true, "regproc": true, "regprocedure": true,
	"regoper": true, "regoperator": true, "regcollation": true, "regconfig": true, "regdictionary": true}

// checkTree returns what in tree resolves a name on the search path, and adds every function,
// operator and type it names to refs.
func checkTree(tree *pg_query.ParseResult, refs *sqlRefs) []string {
	var bad []string
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch n := m.Interface().(type) {
		case *pg_query.FuncCall:
			schema, name := qualified(n.Funcname)
			refs.funcs[name] = true
			if schema != "pg_catalog" {
				bad = append(bad, "function "+strings.TrimPrefix(schema+"."+name, ".")+"()")
			}
		case *pg_query.A_Expr:
			switch n.Kind {
			case pg_query.A_Expr_Kind_AEXPR_OP, pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
				schema, name := qualified(n.Name)
				refs.ops[name] = true
				if schema != "pg_catalog" {
					bad = append(bad, "operator "+name+" (write OPERATOR(pg_catalog."+name+"))")
				}
			default:
				_, name := qualified(n.Name)
				refs.ops[name] = true
				bad = append(bad, strings.TrimPrefix(n.Kind.String(), "A_Expr_Kind_AEXPR_")+" (looks its operator "+name+" up on the search path; write OPERATOR(pg_catalog.op) [ANY|ALL] (ARRAY[...]))")
			}
		case *pg_query.SubLink:
			if n.SubLinkType == pg_query.SubLinkType_ANY_SUBLINK || n.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK || n.SubLinkType == pg_query.SubLinkType_ROWCOMPARE_SUBLINK {
				schema, name := qualified(n.OperName)
				if name == "" {
					name = "="
				}
				refs.ops[name] = true
				if schema != "pg_catalog" {
					bad = append(bad, "subquery comparison "+name+" (IN (SELECT ...) or an unqualified operator; write x OPERATOR(pg_catalog.=) ANY (SELECT ...))")
				}
			}
		case *pg_query.CaseExpr:
			if n.Arg != nil {
				refs.ops["="] = true
				bad = append(bad, "simple CASE x WHEN (compares with = on the search path; write CASE WHEN x OPERATOR(pg_catalog.=) ...)")
			}
		case *pg_query.JoinExpr:
			if len(n.UsingClause) > 0 || n.IsNatural {
				refs.ops["="] = true
				bad = append(bad, "JOIN USING or NATURAL JOIN (compares with = on the search path)")
			}
		case *pg_query.SortBy:
			if len(n.UseOp) > 0 {
				schema, name := qualified(n.UseOp)
				refs.ops[name] = true
				if schema != "pg_catalog" {
					bad = append(bad, "ORDER BY USING "+name)
				}
			}
		case *pg_query.TypeName:
			schema, name := qualified(n.Names)
			refs.types[name] = true
			if schema != "pg_catalog" {
				bad = append(bad, "type "+name+" (write pg_catalog."+name+")")
			}
		case *pg_query.TypeCast:
			if n.TypeName != nil {
				_, name := qualified(n.TypeName.Names)
				if c := n.Arg.GetAConst(); regTypes[name] && c != nil && c.GetSval() != nil && !strings.Contains(c.GetSval().Sval, ".") {
					bad = append(bad, "'"+c.GetSval().Sval+"'::"+name+" (name its schema: 'pg_catalog."+c.GetSval().Sval+"')")
				}
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			case fd.IsMap():
			case fd.Message() != nil:
				walk(v.Message())
			}
			return true
		})
	}
	walk(tree.ProtoReflect())
	return bad
}

// qualified returns the schema (or "") and the name of a name list (funcname, operator, type).
func qualified(names []*pg_query.Node) (schema, name string) {
	var parts []string
	for _, n := range names {
		if s := n.GetString_(); s != nil {
			parts = append(parts, s.Sval)
		}
	}
	switch len(parts) {
	case 0:
		return "", ""
	case 1:
		return "", parts[0]
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// TestPrivilegedSQLResolvesOnlyPgCatalog is the static half of the construction test: no SQL of
// the tool's own names a function, operator or type it does not qualify with pg_catalog, or
// uses a construct that looks an operator up on the search path.
func TestPrivilegedSQLResolvesOnlyPgCatalog(t *testing.T) {
	texts, used := toolSQL(t)
	if len(texts) < 30 {
		t.Fatalf("found %d SQL texts of the tool's; the walk is broken", len(texts))
	}
	refs := newRefs()
	for _, x := range texts {
		bad := checkTree(x.tree, refs)
		sort.Strings(bad)
		for _, b := range slices.Compact(bad) {
			t.Errorf("%s: %s", x.where, b)
		}
	}
	for k := range privilegedExempt {
		if !used[k] {
			t.Errorf("privilegedExempt names %q, which no longer exists: remove it", k)
		}
	}
	t.Logf("%d SQL texts; functions %d, operators %d, types %d", len(texts), len(refs.funcs), len(refs.ops), len(refs.types))
}
