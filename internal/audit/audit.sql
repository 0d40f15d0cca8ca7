-- The installed security audit: what the API roles (anon, authenticated) can do with the objects
-- a migration created or changed, asked of the catalog in one query (effective privileges
-- through PUBLIC, memberships and grants: has_*_privilege; policies; view options). The checks
-- are Supabase's splinter security lints (the ids in the comments), written for ledgercheck from
-- their description (supabase/splinter's lints), scoped to the migration.
--
-- $1 text[]  the exposed schemas (PostgREST's db-schemas; public by default)
-- $2 text[]  the relations in scope, as schema.name (quote_ident)
-- $3 text[]  the functions in scope, as schema.name(oidvectortypes)
-- $4 text[]  the extensions in scope
-- $5 text[]  the extensions the configuration lists as untrusted (lint.untrusted_extensions)
-- $6 text[]  the extensions that belong in pg_catalog (pg_cron, which Supabase pins there)
--
-- Each row: rule, kind, object (as the footprint names it), schema, name, the number of
-- arguments (functions), the API role concerned ('' when none), detail.
WITH api(role) AS (VALUES ('anon'::pg_catalog.text), ('authenticated')),
rel AS (
  SELECT c.oid, c.relkind, n.nspname, c.relname, c.relrowsecurity AS rls,
         pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname) AS ident,
         n.nspname OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[]) AS exposed,
         coalesce(c.reloptions OPERATOR(pg_catalog.&&) ARRAY['security_invoker=true', 'security_invoker=on', 'security_invoker=1', 'security_invoker=yes']::pg_catalog.text[], false) AS invoker,
         EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid OPERATOR(pg_catalog.=) c.oid) AS has_policy
  FROM pg_class c
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p', 'v', 'm', 'f']::pg_catalog."char"[])
    AND (pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname)) OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.text[])
),
pol AS (
  SELECT r.ident, r.nspname, r.relname, p.polname, p.polcmd,
         pg_catalog.pg_get_expr(p.polqual, p.polrelid) AS qual,
         pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid) AS chk,
         (SELECT pg_catalog.string_agg(CASE WHEN x OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC' ELSE x::pg_catalog.regrole::pg_catalog.text END, ', ' ORDER BY 1)
            FROM pg_catalog.unnest(p.polroles) x
           WHERE x OPERATOR(pg_catalog.=) 0 OR x::pg_catalog.regrole::pg_catalog.text OPERATOR(pg_catalog.=) ANY (ARRAY['anon', 'authenticated']::pg_catalog.text[])) AS roles
  FROM pg_policy p
  JOIN rel r ON r.oid OPERATOR(pg_catalog.=) p.polrelid
  WHERE r.rls AND p.polpermissive
)
-- 0028, 0029: SECURITY DEFINER functions the API roles can execute (trigger functions cannot
-- be called directly and are left out).
SELECT 'definer-executable-by-' OPERATOR(pg_catalog.||) a.role AS rule, 'function' AS kind,
       pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(p.proname)
         OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) pg_catalog.oidvectortypes(p.proargtypes) OPERATOR(pg_catalog.||) ')' AS object,
       n.nspname AS schema, p.proname AS name, p.pronargs::pg_catalog.int4 AS nargs, a.role, '' AS detail
FROM pg_proc p
JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
CROSS JOIN api a
WHERE p.prosecdef
  AND p.prorettype OPERATOR(pg_catalog.<>) ALL (ARRAY['pg_catalog.trigger'::pg_catalog.regtype, 'pg_catalog.event_trigger'::pg_catalog.regtype]::pg_catalog.oid[])
  AND (pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(p.proname)
       OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) pg_catalog.oidvectortypes(p.proargtypes) OPERATOR(pg_catalog.||) ')') OPERATOR(pg_catalog.=) ANY ($3::pg_catalog.text[])
  AND pg_catalog.has_function_privilege(a.role, p.oid, 'EXECUTE')
UNION ALL
-- 0002: a view or materialized view in an exposed schema that reads auth.users, selectable by
-- an API role.
SELECT 'auth-users-exposed', CASE WHEN r.relkind OPERATOR(pg_catalog.=) 'v' THEN 'view' ELSE 'materialized view' END, r.ident,
       r.nspname, r.relname, 0, a.role, ''
FROM rel r
CROSS JOIN api a
WHERE r.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['v', 'm']::pg_catalog."char"[]) AND r.exposed
  AND EXISTS (SELECT 1 FROM pg_rewrite w JOIN pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid OPERATOR(pg_catalog.=) w.oid
              WHERE w.ev_class OPERATOR(pg_catalog.=) r.oid AND d.refobjid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('auth.users'))
  AND pg_catalog.has_table_privilege(a.role, r.oid, 'SELECT')
UNION ALL
-- 0010: a view without security_invoker selectable by an API role: it reads with its owner's
-- rights, past the row level security of the tables it reads.
SELECT 'security-definer-view', 'view', r.ident, r.nspname, r.relname, 0, a.role, ''
FROM rel r
CROSS JOIN api a
WHERE r.relkind OPERATOR(pg_catalog.=) 'v' AND r.exposed AND NOT r.invoker
  AND pg_catalog.has_table_privilege(a.role, r.oid, 'SELECT')
UNION ALL
-- 0013: a table in an exposed schema without row level security that an API role can select:
-- it reads every row through the Data API.
SELECT 'rls-disabled-in-public', 'table', r.ident, r.nspname, r.relname, 0, a.role, ''
FROM rel r
CROSS JOIN api a
WHERE r.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p']::pg_catalog."char"[]) AND r.exposed AND NOT r.rls
  AND pg_catalog.has_table_privilege(a.role, r.oid, 'SELECT')
UNION ALL
-- 0007: policies on a table whose row level security is off.
SELECT 'policy-exists-rls-disabled', 'table', r.ident, r.nspname, r.relname, 0, '',
       (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(p.polname), ', ' ORDER BY p.polname) FROM pg_policy p WHERE p.polrelid OPERATOR(pg_catalog.=) r.oid)
FROM rel r
WHERE r.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p']::pg_catalog."char"[]) AND r.exposed AND NOT r.rls AND r.has_policy
UNION ALL
-- 0008: row level security on and no policy at all.
SELECT 'rls-enabled-no-policy', 'table', r.ident, r.nspname, r.relname, 0, '', ''
FROM rel r
WHERE r.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p']::pg_catalog."char"[]) AND r.exposed AND r.rls AND NOT r.has_policy
UNION ALL
-- 0024: a permissive policy for anon, authenticated or PUBLIC that lets every row through on a
-- write: USING true (or absent) for UPDATE, DELETE or ALL; WITH CHECK true; WITH CHECK absent on
-- INSERT, or on UPDATE/ALL with a true USING. SELECT with USING (true) is public read, not this.
SELECT 'policy-always-true', 'policy', pg_catalog.quote_ident(p.polname) OPERATOR(pg_catalog.||) ' on ' OPERATOR(pg_catalog.||) p.ident, p.nspname, p.polname, 0, p.roles,
       CASE WHEN p.polcmd OPERATOR(pg_catalog.=) 'a' THEN 'INSERT' WHEN p.polcmd OPERATOR(pg_catalog.=) 'w' THEN 'UPDATE'
            WHEN p.polcmd OPERATOR(pg_catalog.=) 'd' THEN 'DELETE' ELSE 'ALL' END
FROM pol p
WHERE p.roles IS NOT NULL
  AND (p.polcmd OPERATOR(pg_catalog.=) ANY (ARRAY['w', 'd', '*']::pg_catalog."char"[])
         AND (p.qual IS NULL OR p.qual OPERATOR(pg_catalog.=) ANY (ARRAY['true', '(1 = 1)']::pg_catalog.text[]))
       OR p.chk OPERATOR(pg_catalog.=) ANY (ARRAY['true', '(1 = 1)']::pg_catalog.text[])
       OR p.polcmd OPERATOR(pg_catalog.=) 'a' AND p.chk IS NULL
       OR p.polcmd OPERATOR(pg_catalog.=) ANY (ARRAY['w', '*']::pg_catalog."char"[]) AND p.chk IS NULL
         AND (p.qual IS NULL OR p.qual OPERATOR(pg_catalog.=) ANY (ARRAY['true', '(1 = 1)']::pg_catalog.text[])))
UNION ALL
-- 0021: a foreign key of a table to a unique constraint of Supabase's auth schema other than a
-- primary key (auth.users (email), (phone)): Supabase may change such a constraint, which the
-- key would then stop.
SELECT 'fkey-to-auth-unique', 'table', r.ident, r.nspname, r.relname, 0, '', k.conname::pg_catalog.text
FROM rel r
JOIN pg_catalog.pg_constraint k ON k.conrelid OPERATOR(pg_catalog.=) r.oid AND k.contype OPERATOR(pg_catalog.=) 'f'
JOIN pg_catalog.pg_class t ON t.oid OPERATOR(pg_catalog.=) k.confrelid
JOIN pg_catalog.pg_namespace tn ON tn.oid OPERATOR(pg_catalog.=) t.relnamespace
WHERE tn.nspname OPERATOR(pg_catalog.=) 'auth'
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indexrelid OPERATOR(pg_catalog.=) k.conindid AND i.indisprimary)
UNION ALL
-- 0014: an extension installed in schema public.
SELECT 'extension-in-public', 'extension', pg_catalog.quote_ident(e.extname), n.nspname, e.extname, 0, '', ''
FROM pg_extension e
JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
WHERE n.nspname OPERATOR(pg_catalog.=) 'public' AND e.extname OPERATOR(pg_catalog.=) ANY ($4::pg_catalog.text[])
UNION ALL
-- An extension the configuration lists as untrusted, however the migration created it (a literal
-- CREATE EXTENSION, one EXECUTE built, one a function ran), as the catalog has it; and one placed
-- in pg_catalog, where every privileged session resolves names. (The schema column is empty: a
-- static finding names the extension alone.)
SELECT 'untrusted-extension', 'extension', pg_catalog.quote_ident(e.extname), '', e.extname, 0, '', ''
FROM pg_extension e
WHERE e.extname OPERATOR(pg_catalog.=) ANY ($4::pg_catalog.text[]) AND e.extname OPERATOR(pg_catalog.=) ANY ($5::pg_catalog.text[])
UNION ALL
SELECT 'extension-in-pg-catalog', 'extension', pg_catalog.quote_ident(e.extname), '', e.extname, 0, '', ''
FROM pg_extension e
JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
WHERE e.extname OPERATOR(pg_catalog.=) ANY ($4::pg_catalog.text[]) AND n.nspname OPERATOR(pg_catalog.=) 'pg_catalog'
  AND NOT e.extname OPERATOR(pg_catalog.=) ANY ($6::pg_catalog.text[])
UNION ALL
-- 0016, 0017: materialized views and foreign tables (no row level security) selectable by an
-- API role.
SELECT CASE WHEN r.relkind OPERATOR(pg_catalog.=) 'm' THEN 'materialized-view-in-api' ELSE 'foreign-table-in-api' END,
       CASE WHEN r.relkind OPERATOR(pg_catalog.=) 'm' THEN 'materialized view' ELSE 'foreign table' END,
       r.ident, r.nspname, r.relname, 0, a.role, ''
FROM rel r
CROSS JOIN api a
WHERE r.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['m', 'f']::pg_catalog."char"[]) AND r.exposed
  AND pg_catalog.has_table_privilege(a.role, r.oid, 'SELECT')
UNION ALL
-- Effective access (for api-reads-every-row and api-writes-every-row, decided in Go): for each
-- table of the scope with row level security, each API role and each command the role holds the
-- privilege for, every policy that applies to the role for that command, with its expressions
-- (detail: command, permissive or restrictive, policy name, USING, WITH CHECK, separated by
-- U+001F).
SELECT 'api-access', 'table', r.ident, r.nspname, r.relname, 0, a.role,
       c.cmd OPERATOR(pg_catalog.||) E'\x1f' OPERATOR(pg_catalog.||)
       (CASE WHEN p.polpermissive THEN 'permissive' ELSE 'restrictive' END) OPERATOR(pg_catalog.||) E'\x1f' OPERATOR(pg_catalog.||)
       p.polname::pg_catalog.text OPERATOR(pg_catalog.||) E'\x1f' OPERATOR(pg_catalog.||)
       coalesce(pg_catalog.pg_get_expr(p.polqual, p.polrelid), '') OPERATOR(pg_catalog.||) E'\x1f' OPERATOR(pg_catalog.||)
       coalesce(pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid), '')
FROM rel r
CROSS JOIN api a
CROSS JOIN (VALUES ('SELECT'::pg_catalog.text, 'r'::pg_catalog."char"), ('INSERT', 'a'), ('UPDATE', 'w'), ('DELETE', 'd')) c(cmd, code)
JOIN pg_catalog.pg_policy p ON p.polrelid OPERATOR(pg_catalog.=) r.oid
 AND (p.polcmd OPERATOR(pg_catalog.=) c.code OR p.polcmd OPERATOR(pg_catalog.=) '*'::pg_catalog."char")
WHERE r.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p']::pg_catalog."char"[]) AND r.exposed AND r.rls
  AND pg_catalog.has_table_privilege(a.role, r.oid, c.cmd)
  AND EXISTS (SELECT 1 FROM pg_catalog.unnest(p.polroles) x
              WHERE x OPERATOR(pg_catalog.=) 0::pg_catalog.oid OR pg_catalog.pg_has_role(a.role, x, 'MEMBER'))
ORDER BY 1, 3, 7
