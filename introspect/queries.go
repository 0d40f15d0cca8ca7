package introspect

import (
	"embed"
	"fmt"
	"strings"
	"text/template"
)

// The catalog queries, one file per object kind. Each returns a single JSON array of objects
// whose keys are the JSON names of the model's fields, so that scanning is plain decoding; each
// is a text/template expanded by [renderQueries] with the helpers below, which filter schemas
// and extension members the same way everywhere and explode ACLs the same way everywhere.
//
//go:embed queries/*.sql
var queryFS embed.FS

// EnvironmentSchemas are the schemas a Supabase database has before any user SQL, left out of a
// snapshot unless [Options.IncludeEnvironment] is set (triggers, policies and rules on their
// tables are kept regardless, and so are publications, which have no schema).
var EnvironmentSchemas = []string{
	"_analytics", "_realtime", "auth", "extensions", "graphql", "graphql_public", "net",
	"pgbouncer", "pgsodium", "pgsodium_masks", "pgtle", "realtime", "storage",
	"supabase_functions", "supabase_migrations", "vault", "cron",
}

// systemSchemaFilter is true for every schema but PostgreSQL's own.
const systemSchemaFilter = `(%[1]s.nspname OPERATOR(pg_catalog.<>) ALL (ARRAY['pg_catalog', 'information_schema']::pg_catalog.name[]) AND %[1]s.nspname OPERATOR(pg_catalog.!~) '^pg_(toast|temp_|toast_temp_)')`

// aclTemplate explodes an aclitem[] (%[1]s) into a JSON array of {grantee, privileges}: one
// element per grantee, the grantor ignored, privileges de-duplicated with "*" for WITH GRANT
// OPTION; NULL (no ACL) stays NULL without running the subquery.
//
// A grantee that holds every privilege its object's kind has on this server reads ["ALL"] (["ALL*"]
// when it holds them all WITH GRANT OPTION), whatever the server version: PostgreSQL 17 added
// MAINTAIN to the privileges of tables, views and materialized views, so GRANT ALL, ALTER DEFAULT
// PRIVILEGES ... GRANT ALL and an owner's default ACL hold one more privilege on 17 than on 15,
// and as lists they would differ between the two. The kind's privileges are its owner's in
// acldefault(%[3]s, ...), the kind given as a "char" expression; kinds that have one privilege
// (functions: EXECUTE, types: USAGE) or no default (columns) keep their list. A grantee that
// holds some of a kind's privileges keeps the list on every version, so a grant of the 15 set
// without MAINTAIN reads differently on 17 from GRANT ALL, as it should.
const aclTemplate = `CASE WHEN %[1]s IS NOT NULL THEN
  (SELECT pg_catalog.json_agg(pg_catalog.json_build_object('grantee', g.grantee, 'privileges', CASE
              WHEN k.n OPERATOR(pg_catalog.<) 2 OR g.held OPERATOR(pg_catalog.<) k.n OR g.any_grantable AND NOT g.all_grantable THEN g.privileges
              WHEN g.all_grantable THEN ARRAY['ALL*'] ELSE ARRAY['ALL'] END) ORDER BY g.grantee)
     FROM (SELECT CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC' ELSE %[2]s END AS grantee,
                  pg_catalog.array_agg(DISTINCT a.privilege_type OPERATOR(pg_catalog.||) CASE WHEN a.is_grantable THEN '*' ELSE '' END) AS privileges,
                  pg_catalog.count(DISTINCT a.privilege_type) AS held,
                  pg_catalog.bool_or(a.is_grantable) AS any_grantable, pg_catalog.bool_and(a.is_grantable) AS all_grantable
             FROM pg_catalog.aclexplode(%[1]s) a GROUP BY 1) g,
          (SELECT pg_catalog.count(DISTINCT d.privilege_type) AS n FROM pg_catalog.aclexplode(pg_catalog.acldefault(%[3]s, 10)) d) k) END`

// extensionMemberTemplate is true unless the object is a member of an extension. NOT (= ANY)
// over an uncorrelated subquery (what NOT IN is, with = looked up on the search path) runs it
// once, as a hashed subplan, instead of a lookup per row.
const extensionMemberTemplate = `NOT (%[2]s OPERATOR(pg_catalog.=) ANY (SELECT dep.objid FROM pg_depend dep WHERE dep.classid OPERATOR(pg_catalog.=) 'pg_catalog.%[1]s'::pg_catalog.regclass AND dep.deptype OPERATOR(pg_catalog.=) 'e'))`

// commentTemplate reads an object's comment: pg_description by its index, without the SQL
// function call obj_description and col_description make per row.
const commentTemplate = `(SELECT ds.description FROM pg_description ds WHERE ds.objoid OPERATOR(pg_catalog.=) %[2]s AND ds.classoid OPERATOR(pg_catalog.=) 'pg_catalog.%[1]s'::pg_catalog.regclass AND ds.objsubid OPERATOR(pg_catalog.=) %[3]s)`

// renderQueries expands every query for opts.
func renderQueries(opts Options) (map[string]string, error) {
	installRole, adminRole := opts.roles()
	// displayRole renders the role name expr as snapshots show it: the role user SQL ran as is
	// postgres and the superuser supabase_admin, whatever they are called on the server (a --dsn
	// server has roles of its own), so that snapshots compare across servers.
	displayRole := func(expr string) string {
		if installRole == DefaultInstallRole && adminRole == DefaultAdminRole {
			return expr
		}
		return fmt.Sprintf("CASE WHEN %[1]s OPERATOR(pg_catalog.=) %[2]s THEN %[3]s WHEN %[1]s OPERATOR(pg_catalog.=) %[4]s THEN %[5]s ELSE %[1]s END", expr,
			quoteText(installRole), quoteText(DefaultInstallRole), quoteText(adminRole), quoteText(DefaultAdminRole))
	}
	roleName := func(oidExpr string) string { return displayRole("pg_catalog.pg_get_userbyid(" + oidExpr + ")") }
	funcs := template.FuncMap{
		// acl explodes the ACL expr of an object of the kind kind (an acldefault "char" expression).
		"acl":  func(expr, kind string) string { return fmt.Sprintf(aclTemplate, expr, roleName("a.grantee"), kind) },
		"role": roleName,
		// displayRole renders a role name as snapshots show it; installRole and adminRole are
		// the names of the role user SQL ran as and of the superuser, as SQL literals.
		"displayRole": displayRole,
		"installRole": func() string { return quoteText(installRole) },
		"adminRole":   func() string { return quoteText(adminRole) },
		"nonSystemSchema": func(alias string) string {
			return fmt.Sprintf(systemSchemaFilter, alias)
		},
		"userSchema": func(alias string) string { return userSchemaFilter(opts, alias) },
		"comment": func(catalog, oid, subid string) string {
			return fmt.Sprintf(commentTemplate, catalog, oid, subid)
		},
		"notExtensionMember": func(catalog, oid string) string {
			if opts.IncludeExtensionObjects {
				return "true"
			}
			return fmt.Sprintf(extensionMemberTemplate, catalog, oid)
		},
	}
	out := make(map[string]string, len(queryNames))
	for _, name := range queryNames {
		src, err := queryFS.ReadFile("queries/" + name + ".sql")
		if err != nil {
			return nil, fmt.Errorf("reading query %s: %w", name, err)
		}
		t, err := template.New(name).Funcs(funcs).Parse(string(src))
		if err != nil {
			return nil, fmt.Errorf("parsing query %s: %w", name, err)
		}
		var b strings.Builder
		if err := t.Execute(&b, nil); err != nil {
			return nil, fmt.Errorf("expanding query %s: %w", name, err)
		}
		out[name] = b.String()
		if name == "roles" && opts.SkipRoles {
			out[name] = "SELECT '[]'::pg_catalog.json"
		}
	}
	return out, nil
}

// userSchemaFilter is true for the schemas opts selects, of the pg_namespace row alias.
func userSchemaFilter(opts Options, alias string) string {
	conds := []string{fmt.Sprintf(systemSchemaFilter, alias)}
	if !opts.IncludeEnvironment {
		conds = append(conds, fmt.Sprintf("%s.nspname OPERATOR(pg_catalog.<>) ALL (%s)", alias, textArray(EnvironmentSchemas)))
	}
	if len(opts.Schemas) > 0 {
		conds = append(conds, fmt.Sprintf("%s.nspname OPERATOR(pg_catalog.=) ANY (%s)", alias, textArray(opts.Schemas)))
	}
	return "(" + strings.Join(conds, " AND ") + ")"
}

func quoteText(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// textArray renders names as a SQL text[] literal.
func textArray(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + strings.ReplaceAll(n, "'", "''") + "'"
	}
	if len(q) == 0 {
		return "ARRAY[]::pg_catalog.text[]"
	}
	return "ARRAY[" + strings.Join(q, ", ") + "]::pg_catalog.text[]"
}
