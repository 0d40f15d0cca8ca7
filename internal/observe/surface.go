package observe

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The surface is what the Data API reaches of what the file created or changed: the relations
// of the exposed schemas in scope (and the tables in the realtime publication the file added),
// their columns, and the functions and aggregates of the exposed schemas in scope; plus the
// tables the policies of those relations read (a membership table), which a persona may write
// before it reads. It is read on the observer's session, as the observer (no privilege: the
// catalog is readable by anyone), with pg_catalog-qualified SQL, so that nothing the migration
// defined answers in its place.

// Relation is a relation of the surface (or one its policies read).
type Relation struct {
	OID                uint32
	Kind               string // table, partitioned table, view, materialized view, foreign table
	Schema, Name       string
	Ident              string // schema.name, quoted where needed (quote_ident), as the footprint names it
	RLS                bool
	Related            bool     // read by a policy of the surface, not in it itself
	Published          bool     // in the supabase_realtime publication
	Triggers, Rules    []string // its triggers and rules (not a view's _RETURN), by name
	StatementTriggers  bool     // a trigger of its fires once per statement
	triggerSources     []string // its triggers' functions' source text (read, never run)
	Columns            []Column
	Priv               map[string]Privileges // by API role
	Grantable          map[string][]string   // by API role: the privileges it may grant on
	Policies           []Policy
	Owners             []string            // owner columns: a foreign key to auth.users, or compared with auth.uid() by a policy
	ForeignKeys        []ForeignKey        // the relation's foreign keys
	Bases              []string            // a view's base tables (through other views), as Ident
	ownerTestedBy      map[string][]string // owner column -> the policies that compare it with the user's id
	ownerTestingPolicy bool
	updatable          int32           // pg_relation_is_updatable: the commands it takes (1<<CMD_UPDATE, ...)
	invoker, calls     bool            // a view: security_invoker; it calls a function outside pg_catalog
	basesDeny          map[string]bool // a view: every base table refuses SELECT to the API role (default deny)
}

// Column is a column of a relation.
type Column struct {
	Name    string
	Type    string // format_type
	NotNull bool
	// Auto is true when the server fills it: a default, an identity or a generation expression.
	Auto bool
	// Default is its default expression, as PostgreSQL prints it ("" none).
	Default string
	// Priv is, by API role, the column privileges it holds: "SELECT", "INSERT", "UPDATE".
	Priv map[string][]string
}

// Privileges are an API role's table privileges on a relation.
type Privileges struct{ Select, Insert, Update, Delete bool }

// Policy is a row level security policy of a relation.
type Policy struct {
	Name         string
	Cmd          string // SELECT, INSERT, UPDATE, DELETE, ALL
	Permissive   bool
	Roles        []string // role names; "public" for PUBLIC
	Using, Check string   // as pg_get_expr prints them ("" when absent)
	Reads        []string // the relations its expressions read (Ident), its own table included
	// AppliesTo are the API roles it applies to: PUBLIC's, theirs, or a role they are members of.
	AppliesTo []string
	Calls     string // the source of the functions it calls (outside pg_catalog and auth), joined
}

// ForeignKey is a foreign key of a relation.
type ForeignKey struct {
	Columns    []string
	References string // Ident of the referenced table
	RefColumns []string
}

// Function is a function or aggregate of the surface.
type Function struct {
	OID          uint32
	Ident        string // schema.name(argument types), as the footprint names it
	Schema, Name string
	Kind         string // function, aggregate
	Definer      bool   // SECURITY DEFINER (an aggregate: one of its support functions is)
	Set          bool   // returns a set
	Returns      string // format_type of the return type
	Args         []string
	Defaults     int             // how many trailing arguments have defaults
	Execute      map[string]bool // by API role
}

// Surface is the relations and functions observed.
type Surface struct {
	Relations []*Relation
	Functions []*Function
}

// Relation returns the relation of ident, or nil.
func (s *Surface) Relation(ident string) *Relation {
	for _, r := range s.Relations {
		if r.Ident == ident {
			return r
		}
	}
	return nil
}

// byOID returns the relation of oid, or nil.
func (s *Surface) byOID(oid uint32) *Relation {
	for _, r := range s.Relations {
		if r.OID == oid {
			return r
		}
	}
	return nil
}

// apiRoles are the roles whose privileges the surface reads: the Data API's.
var apiRoles = []string{"anon", "authenticated"}

// relationsSQL lists the relations in scope and those their policies read.
// $1 exposed schemas, $2 relations in scope (schema.name), $3 realtime tables in scope.
const relationsSQL = `WITH RECURSIVE cand AS MATERIALIZED (
  SELECT c.oid, pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname) AS ident,
         n.nspname OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[]) AS exposed
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p', 'v', 'm', 'f']::pg_catalog."char"[])
    AND (c.relnamespace OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT x.oid FROM pg_catalog.pg_namespace x WHERE x.nspname OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[])))
         OR c.oid OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT pr.prrelid FROM pg_catalog.pg_publication_rel pr)))
), scope AS (
  SELECT oid FROM cand
  WHERE exposed AND ($2::pg_catalog.text[] IS NULL OR ident OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.text[]))
     OR ident OPERATOR(pg_catalog.=) ANY ($3::pg_catalog.text[])
), related AS (
  SELECT DISTINCT d.refobjid AS oid FROM pg_catalog.pg_policy p
  JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_policy'::pg_catalog.regclass AND d.objid OPERATOR(pg_catalog.=) p.oid
   AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
  JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) d.refobjid AND c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p']::pg_catalog."char"[])
  WHERE p.polrelid OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT oid FROM scope))
    AND NOT d.refobjid OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT oid FROM scope))
), rels AS (
  SELECT oid, false AS related FROM scope UNION ALL SELECT oid, true FROM related
)
SELECT c.oid, CASE WHEN c.relkind OPERATOR(pg_catalog.=) 'r' THEN 'table' WHEN c.relkind OPERATOR(pg_catalog.=) 'p' THEN 'partitioned table'
         WHEN c.relkind OPERATOR(pg_catalog.=) 'v' THEN 'view' WHEN c.relkind OPERATOR(pg_catalog.=) 'm' THEN 'materialized view' ELSE 'foreign table' END,
       n.nspname::pg_catalog.text, c.relname::pg_catalog.text,
       pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname),
       c.relrowsecurity, r.related,
       EXISTS (SELECT 1 FROM pg_catalog.pg_publication pb WHERE pb.pubname OPERATOR(pg_catalog.=) 'supabase_realtime'
               AND (pb.puballtables OR EXISTS (SELECT 1 FROM pg_catalog.pg_publication_rel pr WHERE pr.prpubid OPERATOR(pg_catalog.=) pb.oid AND pr.prrelid OPERATOR(pg_catalog.=) c.oid))),
       ARRAY(SELECT t.tgname::pg_catalog.text FROM pg_catalog.pg_trigger t WHERE t.tgrelid OPERATOR(pg_catalog.=) c.oid AND NOT t.tgisinternal ORDER BY 1),
       EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t WHERE t.tgrelid OPERATOR(pg_catalog.=) c.oid AND NOT t.tgisinternal
               AND (t.tgtype::pg_catalog.int4 OPERATOR(pg_catalog.&) 1) OPERATOR(pg_catalog.=) 0),
       ARRAY(SELECT f.prosrc FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_proc f ON f.oid OPERATOR(pg_catalog.=) t.tgfoid
             WHERE t.tgrelid OPERATOR(pg_catalog.=) c.oid AND NOT t.tgisinternal),
       pg_catalog.pg_relation_is_updatable(c.oid, true),
       coalesce(c.reloptions OPERATOR(pg_catalog.&&) ARRAY['security_invoker=true', 'security_invoker=on', 'security_invoker=1', 'security_invoker=yes']::pg_catalog.text[], false),
       EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite w
               JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid OPERATOR(pg_catalog.=) w.oid
                AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
               JOIN pg_catalog.pg_proc f ON f.oid OPERATOR(pg_catalog.=) d.refobjid
               JOIN pg_catalog.pg_namespace fn ON fn.oid OPERATOR(pg_catalog.=) f.pronamespace
               WHERE w.ev_class OPERATOR(pg_catalog.=) c.oid AND fn.nspname OPERATOR(pg_catalog.<>) 'pg_catalog'),
       ARRAY(SELECT w.rulename::pg_catalog.text FROM pg_catalog.pg_rewrite w WHERE w.ev_class OPERATOR(pg_catalog.=) c.oid AND w.rulename OPERATOR(pg_catalog.<>) '_RETURN' ORDER BY 1)
FROM rels r JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r.oid
JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
ORDER BY 5`

// columnsSQL lists the columns of $1 (relation oids) with the API roles' column privileges.
const columnsSQL = `SELECT a.attrelid, a.attname::pg_catalog.text, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull,
       a.atthasdef OR a.attidentity OPERATOR(pg_catalog.<>) '' OR a.attgenerated OPERATOR(pg_catalog.<>) '',
       coalesce((SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid) FROM pg_catalog.pg_attrdef d
                WHERE d.adrelid OPERATOR(pg_catalog.=) a.attrelid AND d.adnum OPERATOR(pg_catalog.=) a.attnum AND a.attgenerated OPERATOR(pg_catalog.=) ''), ''),
       ARRAY(SELECT r OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) p
             FROM pg_catalog.unnest(ARRAY['anon', 'authenticated']::pg_catalog.text[]) r,
                  pg_catalog.unnest(ARRAY['SELECT', 'INSERT', 'UPDATE']::pg_catalog.text[]) p
             WHERE pg_catalog.has_column_privilege(r, a.attrelid, a.attnum, p))
FROM pg_catalog.pg_attribute a
WHERE a.attrelid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[]) AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
ORDER BY a.attrelid, a.attnum`

// privilegesSQL lists the API roles' table privileges on $1 (relation oids), and those they
// hold with the grant option.
const privilegesSQL = `SELECT c.oid, r.role,
       pg_catalog.has_table_privilege(r.role, c.oid, 'SELECT'), pg_catalog.has_table_privilege(r.role, c.oid, 'INSERT'),
       pg_catalog.has_table_privilege(r.role, c.oid, 'UPDATE'), pg_catalog.has_table_privilege(r.role, c.oid, 'DELETE'),
       ARRAY(SELECT p FROM pg_catalog.unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']::pg_catalog.text[]) p
             WHERE pg_catalog.has_table_privilege(r.role, c.oid, p OPERATOR(pg_catalog.||) ' WITH GRANT OPTION'))
FROM pg_catalog.pg_class c CROSS JOIN pg_catalog.unnest(ARRAY['anon', 'authenticated']::pg_catalog.text[]) r(role)
WHERE c.oid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[])`

// policiesSQL lists the policies of $1 (relation oids), with what their expressions read and
// the source of the functions they call outside pg_catalog and auth.
const policiesSQL = `SELECT p.polrelid, p.polname::pg_catalog.text,
       CASE WHEN p.polcmd OPERATOR(pg_catalog.=) 'r' THEN 'SELECT' WHEN p.polcmd OPERATOR(pg_catalog.=) 'a' THEN 'INSERT'
            WHEN p.polcmd OPERATOR(pg_catalog.=) 'w' THEN 'UPDATE' WHEN p.polcmd OPERATOR(pg_catalog.=) 'd' THEN 'DELETE' ELSE 'ALL' END,
       p.polpermissive,
       ARRAY(SELECT CASE WHEN x OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'public' ELSE (SELECT a.rolname::pg_catalog.text FROM pg_catalog.pg_roles a WHERE a.oid OPERATOR(pg_catalog.=) x) END
             FROM pg_catalog.unnest(p.polroles) x),
       coalesce(pg_catalog.pg_get_expr(p.polqual, p.polrelid), ''), coalesce(pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid), ''),
       ARRAY(SELECT DISTINCT pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname)
             FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) d.refobjid
             JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
             WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_policy'::pg_catalog.regclass AND d.objid OPERATOR(pg_catalog.=) p.oid
               AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass),
       ARRAY(SELECT r FROM pg_catalog.unnest(ARRAY['anon', 'authenticated']::pg_catalog.text[]) r
             WHERE EXISTS (SELECT 1 FROM pg_catalog.unnest(p.polroles) x
                           WHERE x OPERATOR(pg_catalog.=) 0::pg_catalog.oid OR pg_catalog.pg_has_role(r, x, 'MEMBER'))),
       coalesce((SELECT pg_catalog.string_agg(f.prosrc, E'\n') FROM pg_catalog.pg_depend d
                 JOIN pg_catalog.pg_proc f ON f.oid OPERATOR(pg_catalog.=) d.refobjid
                 JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) f.pronamespace
                 WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_policy'::pg_catalog.regclass AND d.objid OPERATOR(pg_catalog.=) p.oid
                   AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
                   AND NOT n.nspname OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog', 'auth']::pg_catalog.name[])), '')
FROM pg_catalog.pg_policy p
WHERE p.polrelid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[])
ORDER BY p.polrelid, p.polname`

// foreignKeysSQL lists the foreign keys of $1 (relation oids).
const foreignKeysSQL = `SELECT k.conrelid,
       ARRAY(SELECT a.attname::pg_catalog.text FROM pg_catalog.unnest(k.conkey) WITH ORDINALITY u(n, i)
             JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) k.conrelid AND a.attnum OPERATOR(pg_catalog.=) u.n ORDER BY u.i),
       pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname),
       ARRAY(SELECT a.attname::pg_catalog.text FROM pg_catalog.unnest(k.confkey) WITH ORDINALITY u(n, i)
             JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) k.confrelid AND a.attnum OPERATOR(pg_catalog.=) u.n ORDER BY u.i)
FROM pg_catalog.pg_constraint k
JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) k.confrelid
JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
WHERE k.contype OPERATOR(pg_catalog.=) 'f' AND k.conrelid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[])
ORDER BY k.conrelid, k.conname`

// basesSQL lists, for each view of $1 (relation oids), the tables it reads, through views.
const basesSQL = `WITH RECURSIVE reads(view, rel) AS (
  SELECT w.ev_class, d.refobjid FROM pg_catalog.pg_rewrite w
  JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid OPERATOR(pg_catalog.=) w.oid
   AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid OPERATOR(pg_catalog.<>) w.ev_class
  WHERE w.ev_class OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[]) AND w.rulename OPERATOR(pg_catalog.=) '_RETURN'
  UNION
  SELECT r.view, d.refobjid FROM reads r
  JOIN pg_catalog.pg_rewrite w ON w.ev_class OPERATOR(pg_catalog.=) r.rel AND w.rulename OPERATOR(pg_catalog.=) '_RETURN'
  JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid OPERATOR(pg_catalog.=) w.oid
   AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid OPERATOR(pg_catalog.<>) w.ev_class
)
SELECT DISTINCT r.view, pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname),
       ARRAY(SELECT x FROM pg_catalog.unnest(ARRAY['anon', 'authenticated']::pg_catalog.text[]) x
             WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p']::pg_catalog."char"[]) AND c.relrowsecurity
               AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_policy p WHERE p.polrelid OPERATOR(pg_catalog.=) c.oid AND p.polpermissive
                               AND p.polcmd OPERATOR(pg_catalog.=) ANY (ARRAY['r', '*']::pg_catalog."char"[])
                               AND EXISTS (SELECT 1 FROM pg_catalog.unnest(p.polroles) y
                                           WHERE y OPERATOR(pg_catalog.=) 0::pg_catalog.oid OR pg_catalog.pg_has_role(x, y, 'MEMBER')))),
       c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p', 'm']::pg_catalog."char"[])
FROM reads r JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r.rel
JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p', 'm', 'v', 'f']::pg_catalog."char"[])
ORDER BY 1, 2`

// functionsSQL lists the functions and aggregates of the exposed schemas $1 in scope $2
// (schema.name(oidvectortypes)), but trigger and event trigger functions and those taking or
// returning pseudo-types but void and record.
const functionsSQL = `WITH fn AS MATERIALIZED (
  SELECT p.oid, n.nspname,
         pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(p.proname)
           OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) pg_catalog.oidvectortypes(p.proargtypes) OPERATOR(pg_catalog.||) ')' AS ident
  FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
  WHERE p.pronamespace OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT x.oid FROM pg_catalog.pg_namespace x WHERE x.nspname OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[])))
    AND p.prokind OPERATOR(pg_catalog.=) ANY (ARRAY['f', 'a']::pg_catalog."char"[])
)
SELECT p.oid, fn.ident, fn.nspname::pg_catalog.text, p.proname::pg_catalog.text,
       CASE WHEN p.prokind OPERATOR(pg_catalog.=) 'a' THEN 'aggregate' ELSE 'function' END,
       p.prosecdef OR EXISTS (SELECT 1 FROM pg_catalog.pg_aggregate g JOIN pg_catalog.pg_proc s
                                ON s.oid OPERATOR(pg_catalog.=) ANY (ARRAY[g.aggtransfn, g.aggfinalfn, g.aggcombinefn]::pg_catalog.oid[])
                              WHERE g.aggfnoid OPERATOR(pg_catalog.=) p.oid AND s.prosecdef),
       p.proretset,
       pg_catalog.format_type(p.prorettype, NULL),
       ARRAY(SELECT pg_catalog.format_type(t, NULL) FROM pg_catalog.unnest(p.proargtypes::pg_catalog.oid[]) WITH ORDINALITY u(t, i) ORDER BY u.i),
       p.pronargdefaults::pg_catalog.int4,
       pg_catalog.has_function_privilege('anon', p.oid, 'EXECUTE'), pg_catalog.has_function_privilege('authenticated', p.oid, 'EXECUTE')
FROM fn JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) fn.oid
JOIN pg_catalog.pg_type rt ON rt.oid OPERATOR(pg_catalog.=) p.prorettype
WHERE ($2::pg_catalog.text[] IS NULL OR fn.ident OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.text[]))
  AND (rt.typtype OPERATOR(pg_catalog.<>) 'p' OR rt.typname OPERATOR(pg_catalog.=) ANY (ARRAY['void', 'record']::pg_catalog.name[]))
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proargtypes::pg_catalog.oid[]) t JOIN pg_catalog.pg_type at ON at.oid OPERATOR(pg_catalog.=) t
                  WHERE at.typtype OPERATOR(pg_catalog.=) 'p')
ORDER BY 2`

// reachableSQL says whether anon or authenticated holds any privilege on a relation or function
// of the scope ($1 exposed schemas, $2 relations, $3 realtime tables, $4 functions; NULL lists:
// all): a cheap first look, before the surface is read.
const reachableSQL = `SELECT EXISTS (
  SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p', 'v', 'm', 'f']::pg_catalog."char"[])
    AND (c.relnamespace OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT x.oid FROM pg_catalog.pg_namespace x WHERE x.nspname OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[])))
         OR c.oid OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT pr.prrelid FROM pg_catalog.pg_publication_rel pr)))
    AND ((n.nspname OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[])
          AND ($2::pg_catalog.text[] IS NULL
               OR (pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname)) OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.text[])))
      OR (pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname)) OPERATOR(pg_catalog.=) ANY ($3::pg_catalog.text[]))
    AND EXISTS (SELECT 1 FROM pg_catalog.unnest(ARRAY['anon', 'authenticated']::pg_catalog.text[]) r
                WHERE pg_catalog.has_table_privilege(r, c.oid, 'SELECT, INSERT, UPDATE, DELETE')
                   OR pg_catalog.has_any_column_privilege(r, c.oid, 'SELECT, INSERT, UPDATE'))
) OR EXISTS (
  SELECT 1 FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
  WHERE p.pronamespace OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT x.oid FROM pg_catalog.pg_namespace x WHERE x.nspname OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[])))
    AND ($4::pg_catalog.text[] IS NULL
         OR (pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(p.proname)
             OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) pg_catalog.oidvectortypes(p.proargtypes) OPERATOR(pg_catalog.||) ')') OPERATOR(pg_catalog.=) ANY ($4::pg_catalog.text[]))
    AND (pg_catalog.has_function_privilege('anon', p.oid, 'EXECUTE') OR pg_catalog.has_function_privilege('authenticated', p.oid, 'EXECUTE'))
)`

// reachable runs reachableSQL for sc on conn.
func reachable(ctx context.Context, conn *pgx.Conn, sc Scope) (bool, error) {
	rels, fns := sc.Relations, sc.Functions
	if sc.All {
		rels, fns = nil, nil
	}
	var ok bool
	if err := conn.QueryRow(ctx, reachableSQL, sc.Exposed, rels, sc.Realtime, fns).Scan(&ok); err != nil {
		return false, fmt.Errorf("observing: %w", err)
	}
	return ok, nil
}

// readSurface reads the surface on conn, the observer's session (as itself).
func readSurface(ctx context.Context, conn *pgx.Conn, sc Scope) (*Surface, error) {
	s := &Surface{}
	rels, fns := sc.Relations, sc.Functions
	if sc.All {
		rels, fns = nil, nil
	}
	rows, err := conn.Query(ctx, relationsSQL, sc.Exposed, rels, sc.Realtime)
	if err != nil {
		return nil, fmt.Errorf("reading the relations: %w", err)
	}
	for rows.Next() {
		r := &Relation{Priv: map[string]Privileges{}, Grantable: map[string][]string{}, ownerTestedBy: map[string][]string{}}
		if err := rows.Scan(&r.OID, &r.Kind, &r.Schema, &r.Name, &r.Ident, &r.RLS, &r.Related, &r.Published, &r.Triggers, &r.StatementTriggers,
			&r.triggerSources, &r.updatable, &r.invoker, &r.calls, &r.Rules); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading the relations: %w", err)
		}
		s.Relations = append(s.Relations, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the relations: %w", err)
	}
	if len(s.Relations) > 0 {
		if err := s.readDetails(ctx, conn); err != nil {
			return nil, err
		}
	}
	if err := s.readFunctions(ctx, conn, sc.Exposed, fns, sc.All); err != nil {
		return nil, err
	}
	return s, nil
}

// oids are the relations' oids.
func (s *Surface) oids() []uint32 {
	out := make([]uint32, len(s.Relations))
	for i, r := range s.Relations {
		out[i] = r.OID
	}
	return out
}

// readDetails reads the relations' columns, privileges, policies, foreign keys and bases in one
// round trip.
func (s *Surface) readDetails(ctx context.Context, conn *pgx.Conn) error {
	oids := s.oids()
	b := &pgx.Batch{}
	b.Queue(columnsSQL, oids).Query(func(rows pgx.Rows) error { return s.scanColumns(rows) })
	b.Queue(privilegesSQL, oids).Query(func(rows pgx.Rows) error { return s.scanPrivileges(rows) })
	b.Queue(policiesSQL, oids).Query(func(rows pgx.Rows) error { return s.scanPolicies(rows) })
	b.Queue(foreignKeysSQL, oids).Query(func(rows pgx.Rows) error { return s.scanForeignKeys(rows) })
	b.Queue(basesSQL, oids).Query(func(rows pgx.Rows) error { return s.scanBases(rows) })
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("reading the relations: %w", err)
	}
	s.helperReads()
	s.findOwners()
	return nil
}

func (s *Surface) scanColumns(rows pgx.Rows) error {
	var oid uint32
	var c Column
	var privs []string
	_, err := pgx.ForEachRow(rows, []any{&oid, &c.Name, &c.Type, &c.NotNull, &c.Auto, &c.Default, &privs}, func() error {
		col := c
		col.Priv = map[string][]string{}
		for _, p := range privs {
			role, priv, _ := strings.Cut(p, ":")
			col.Priv[role] = append(col.Priv[role], priv)
		}
		if r := s.byOID(oid); r != nil {
			r.Columns = append(r.Columns, col)
		}
		return nil
	})
	return err
}

func (s *Surface) scanPrivileges(rows pgx.Rows) error {
	var oid uint32
	var role string
	var p Privileges
	var grantable []string
	_, err := pgx.ForEachRow(rows, []any{&oid, &role, &p.Select, &p.Insert, &p.Update, &p.Delete, &grantable}, func() error {
		if r := s.byOID(oid); r != nil {
			r.Priv[role] = p
			if len(grantable) > 0 {
				r.Grantable[role] = slices.Clone(grantable)
			}
		}
		return nil
	})
	return err
}

// helperReads adds to each policy's Reads the relations of the surface that the functions it
// calls name in their source (a SECURITY DEFINER is_member(team_id) that looks the user up in a
// membership table): PostgreSQL records no dependency of a function body on what it reads, and
// a membership looked up through a helper is the usual way to keep a policy from reading its own
// table. What the name proposes (rows, an enrolment) is tried; what it shows is observed.
func (s *Surface) helperReads() {
	for _, m := range s.Relations {
		named := nameRE(m.Name)
		for _, r := range s.Relations {
			for i := range r.Policies {
				p := &r.Policies[i]
				if p.Calls != "" && !slices.Contains(p.Reads, m.Ident) && named.MatchString(p.Calls) {
					p.Reads = append(p.Reads, m.Ident)
				}
			}
		}
	}
}

// nameRE matches a relation's name as a word of SQL source, qualified by its schema or not, in
// any case (unquoted) or as written (quoted).
func nameRE(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[^a-z0-9_$"])("?` + regexp.QuoteMeta(name) + `"?)($|[^a-z0-9_$"])`)
}

func (s *Surface) scanPolicies(rows pgx.Rows) error {
	var oid uint32
	var p Policy
	_, err := pgx.ForEachRow(rows, []any{&oid, &p.Name, &p.Cmd, &p.Permissive, &p.Roles, &p.Using, &p.Check, &p.Reads, &p.AppliesTo, &p.Calls}, func() error {
		if r := s.byOID(oid); r != nil {
			pol := p
			pol.Roles, pol.Reads, pol.AppliesTo = slices.Clone(p.Roles), slices.Clone(p.Reads), slices.Clone(p.AppliesTo)
			r.Policies = append(r.Policies, pol)
		}
		return nil
	})
	return err
}

func (s *Surface) scanForeignKeys(rows pgx.Rows) error {
	var oid uint32
	var fk ForeignKey
	_, err := pgx.ForEachRow(rows, []any{&oid, &fk.Columns, &fk.References, &fk.RefColumns}, func() error {
		if r := s.byOID(oid); r != nil {
			r.ForeignKeys = append(r.ForeignKeys, ForeignKey{Columns: slices.Clone(fk.Columns), References: fk.References, RefColumns: slices.Clone(fk.RefColumns)})
		}
		return nil
	})
	return err
}

// scanBases reads each view's relations: its base tables, and whether each refuses SELECT to
// each API role by default deny (a view over a view, a materialized view or a foreign table
// refuses nothing by itself).
func (s *Surface) scanBases(rows pgx.Rows) error {
	var oid uint32
	var base string
	var deny []string
	var stored bool
	seen := map[uint32]bool{}
	_, err := pgx.ForEachRow(rows, []any{&oid, &base, &deny, &stored}, func() error {
		r := s.byOID(oid)
		if r == nil {
			return nil
		}
		if !seen[oid] {
			seen[oid] = true
			r.basesDeny = map[string]bool{"anon": true, "authenticated": true}
		}
		for _, role := range apiRoles {
			r.basesDeny[role] = r.basesDeny[role] && slices.Contains(deny, role)
		}
		if stored {
			r.Bases = append(r.Bases, base)
		}
		return nil
	})
	return err
}

// readFunctions reads the functions and aggregates of the exposed schemas named in fns (every
// one with all).
func (s *Surface) readFunctions(ctx context.Context, conn *pgx.Conn, exposed, fns []string, all bool) error {
	if len(fns) == 0 && !all {
		return nil
	}
	rows, err := conn.Query(ctx, functionsSQL, exposed, fns)
	if err != nil {
		return fmt.Errorf("reading the functions: %w", err)
	}
	var f Function
	var anon, authed bool
	_, err = pgx.ForEachRow(rows, []any{&f.OID, &f.Ident, &f.Schema, &f.Name, &f.Kind, &f.Definer, &f.Set, &f.Returns, &f.Args, &f.Defaults, &anon, &authed}, func() error {
		fn := f
		fn.Args = slices.Clone(f.Args)
		fn.Execute = map[string]bool{"anon": anon, "authenticated": authed}
		s.Functions = append(s.Functions, &fn)
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading the functions: %w", err)
	}
	return nil
}
