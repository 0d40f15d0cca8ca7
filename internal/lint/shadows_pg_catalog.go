package lint

import (
	"bufio"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// ShadowsPgCatalog is the id of the rule below.
const ShadowsPgCatalog = "shadows-pg-catalog"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: ShadowsPgCatalog, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		cat := pgCatalog()
		onPath := readerSchemas(p)
		for _, op := range p.Ops() {
			if op.Verb != pgsql.VerbCreate || len(op.Objects) == 0 {
				continue
			}
			obj := op.Objects[0]
			switch {
			case obj.Kind == pgsql.KindCast:
				if c := op.Cast(); c != nil && c.Function.Name != "" && jsonOrText(c.Target) {
					label := string(obj.Kind) + " " + obj.Name.Name // "cast (mood AS json)"
					p.Report(op.Pos, label, "%s WITH FUNCTION %s runs %s, as whoever reads a %s value (the dashboard, backups); drop the cast and call the function by name", label, c.Function, castCallers(c.Target), pgsql.DisplayType(c.Source))
				}
			case !onPath[obj.Name.Schema] || obj.Name.Schema == "pg_catalog" || !obj.HasArgs:
			case obj.Kind == pgsql.KindFunction || obj.Kind == pgsql.KindProcedure:
				what := string(obj.Kind)
				if obj.Kind == pgsql.KindFunction && op.Func() == nil {
					what = "aggregate"
				}
				shadowed := cat.funcs[obj.Name.Name]
				reportShadow(p, op, obj, what, slices.DeleteFunc(slices.Clone(shadowed), func(s pgSig) bool { return !s.accepts(len(obj.Args)) }))
			case obj.Kind == pgsql.KindOperator:
				shadowed := cat.ops[obj.Name.Name]
				reportShadow(p, op, obj, "operator", slices.DeleteFunc(slices.Clone(shadowed), func(s pgSig) bool { return len(s.args) != len(obj.Args) }))
			}
		}
	},
})

// reportShadow reports obj, created by op as a what, over the pg_catalog signatures it shadows
// (none: nothing to report), naming the one closest to obj's.
func reportShadow(p *Pass, op *pgsql.Op, obj pgsql.Object, what string, shadowed []pgSig) {
	if len(shadowed) == 0 {
		return
	}
	name := obj.Name.String()
	if obj.Kind == pgsql.KindOperator { // an operator's name is not an identifier: never quoted
		name = pgsql.QuoteIdent(obj.Name.Schema) + "." + obj.Name.Name
	}
	label := what + " " + name + pgSig{args: obj.Args}.argList()
	fix := "rename it or move it out of " + pgsql.QuoteIdent(obj.Name.Schema)
	same := func(s pgSig) int { // matching arguments, the first ones weighing more
		n := 0
		for i, a := range s.args {
			if i < len(obj.Args) && obj.Args[i] == a {
				n += len(s.args) - i
			}
		}
		return n
	}
	slices.SortStableFunc(shadowed, func(a, b pgSig) int { return same(b) - same(a) })
	if s := shadowed[0]; slices.Equal(s.args, obj.Args) {
		p.Report(op.Pos, label, "%s repeats pg_catalog.%s%s: a privileged reader whose search_path puts pg_catalog after %s runs it; %s", label, obj.Name.Name, s.argList(), pgsql.QuoteIdent(obj.Name.Schema), fix)
		return
	}
	runs := "runs it, as that reader (the dashboard, splinter, backups)"
	if obj.Kind == pgsql.KindProcedure {
		runs = "fails on it"
	}
	more := ""
	if len(shadowed) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(shadowed)-1)
	}
	p.Report(op.Pos, label, "%s shadows pg_catalog.%s%s%s: a privileged reader's call whose arguments match it better %s; %s", label, obj.Name.Name, shadowed[0].argList(), more, runs, fix)
}

// jsonOrText reports whether a cast to t is one readers invoke without naming it.
func jsonOrText(t string) bool { return t == "json" || t == "jsonb" || t == "text" }

// castCallers names what invokes a cast to t.
func castCallers(t string) string {
	if t == "json" {
		return "inside to_json, to_jsonb, row_to_json and json_agg"
	}
	return "on every ::" + t + " of the type"
}

// supabaseRoles are the roles of a Supabase database that read it with privilege or serve it:
// "$user" in their default search_path is a schema named after them.
var supabaseRoles = []string{InstallRole, "supabase_admin", "supabase_auth_admin", "supabase_storage_admin",
	"supabase_realtime_admin", "supabase_replication_admin", "supabase_functions_admin", "supabase_read_only_user",
	"dashboard_user", "pgbouncer", "authenticator", "service_role", "anon", "authenticated"}

// readerPath are the schemas of the search_path Supabase gives its privileged roles, "$user"
// aside: "$user", public, extensions (postgres), auth (supabase_admin), storage (the storage
// admin).
var readerPath = []string{"public", "extensions", "auth", "storage"}

// readerSchemas returns the schemas a privileged reader's search_path may hold: the exposed
// ones, readerPath, and those named after a Supabase role or a role the file creates.
func readerSchemas(p *Pass) map[string]bool {
	out := map[string]bool{}
	for _, s := range readerPath {
		out[s] = true
	}
	for _, s := range p.Config.Exposed() {
		out[s] = true
	}
	for _, r := range supabaseRoles {
		out[r] = true
	}
	for _, op := range p.Ops() {
		if op.Verb == pgsql.VerbCreate && len(op.Objects) > 0 && op.Objects[0].Kind == pgsql.KindRole {
			out[op.Objects[0].Name.Name] = true
		}
	}
	return out
}

// pgcatalogTxt is pg_catalog's functions and operators on PostgreSQL 15 and 17, the union of
// both (TestPgCatalogListIsCurrent generates it): a migration may run on either.
//
//go:embed pgcatalog.txt
var pgcatalogTxt string

// pgSig is one pg_catalog function's or operator's identity argument types ([pgsql.ArgType]'s
// form), with how many trailing ones have defaults and whether the last is variadic, and, for a
// function, whether it is declared other than IMMUTABLE (its result may change with the session,
// the database, the time or the data, for the same arguments), and whether STABLE.
type pgSig struct {
	args     []string
	defaults int
	variadic bool
	varies   bool
	stable   bool
}

// accepts reports whether a call with n arguments may resolve to s.
func (s pgSig) accepts(n int) bool {
	return (n >= len(s.args)-s.defaults && n <= len(s.args)) || (s.variadic && n >= len(s.args))
}

// argList renders s's arguments as PostgreSQL prints them.
func (s pgSig) argList() string {
	names := make([]string, len(s.args))
	for i, a := range s.args {
		names[i] = pgsql.DisplayType(a)
		if a == "any" {
			names[i] = `"any"` // a keyword
		}
	}
	return "(" + strings.Join(names, ", ") + ")"
}

// pgCatalogIndex is pgcatalog.txt by name.
type pgCatalogIndex struct {
	funcs, ops map[string][]pgSig
}

// pgCatalog returns pgcatalog.txt, parsed once.
var pgCatalog = sync.OnceValue(func() *pgCatalogIndex {
	idx := &pgCatalogIndex{funcs: map[string][]pgSig{}, ops: map[string][]pgSig{}}
	sc := bufio.NewScanner(strings.NewReader(pgcatalogTxt))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] == "#" {
			continue
		}
		s := pgSig{args: []string{}}
		if f[2] != "-" {
			s.args = strings.Split(f[2], ",")
		}
		switch {
		case f[0] == "f" && len(f) == 7:
			n, err := strconv.Atoi(f[3])
			if err != nil || f[5] != "immutable" && f[5] != "stable" && f[5] != "volatile" {
				panic("lint: pgcatalog.txt: " + sc.Text()) // a build defect: the file is generated
			}
			s.defaults, s.variadic, s.varies, s.stable = n, f[4] == "variadic", f[5] != "immutable", f[5] == "stable"
			idx.funcs[f[1]] = append(idx.funcs[f[1]], s)
		case f[0] == "o" && len(f) == 4:
			idx.ops[f[1]] = append(idx.ops[f[1]], s)
		default:
			panic("lint: pgcatalog.txt: " + sc.Text())
		}
	}
	return idx
})
