-- name: collations
-- User-defined collations: provider, locale (ICU or builtin: colliculocale on 15 and 16,
-- colllocale from 17, read through to_jsonb as NULL where the column does not exist), LC_COLLATE
-- and LC_CTYPE (libc), ICU rules (16 and later), deterministic, owner and comment. Not the
-- collation version, which is the library's, not the migration's.
-- Every function and operator is qualified: this runs on sessions that must never resolve a
-- name a migration could have defined (to_jsonb of a catalog row reads built-in types only).
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         co.collname AS name,
         CASE WHEN co.collprovider OPERATOR(pg_catalog.=) 'd' THEN 'default'
              WHEN co.collprovider OPERATOR(pg_catalog.=) 'c' THEN 'libc'
              WHEN co.collprovider OPERATOR(pg_catalog.=) 'i' THEN 'icu'
              WHEN co.collprovider OPERATOR(pg_catalog.=) 'b' THEN 'builtin'
              ELSE co.collprovider::pg_catalog.text END AS provider,
         coalesce(pg_catalog.to_jsonb(co) OPERATOR(pg_catalog.->>) 'colllocale',
                  pg_catalog.to_jsonb(co) OPERATOR(pg_catalog.->>) 'colliculocale', '') AS locale,
         coalesce(co.collcollate, '') AS lc_collate,
         coalesce(co.collctype, '') AS lc_ctype,
         coalesce(pg_catalog.to_jsonb(co) OPERATOR(pg_catalog.->>) 'collicurules', '') AS rules,
         co.collisdeterministic AS deterministic,
         {{role "co.collowner"}} AS owner,
         {{comment "pg_collation" "co.oid" "0"}} AS comment
  FROM pg_catalog.pg_collation co
  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) co.collnamespace
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_collation" "co.oid"}}
) x
