-- name: types
-- User-defined enum, domain, composite (stand-alone, not a table's row type) and range types.
-- Enum labels come in their sort order; a domain's CHECK constraints come from constraints.sql
-- and a composite type's attributes from columns.sql.
SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         t.typname AS name,
         CASE t.typtype WHEN 'e' THEN 'enum' WHEN 'd' THEN 'domain' WHEN 'c' THEN 'composite' WHEN 'r' THEN 'range' END AS kind,
         {{role "t.typowner"}} AS owner,
         {{acl "coalesce(t.typacl, acldefault('T', t.typowner))" "'T'"}} AS acl,
         {{comment "pg_type" "t.oid" "0"}} AS comment,
         CASE WHEN t.typtype = 'e' THEN
           (SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid)
         END AS labels,
         CASE t.typtype
           WHEN 'd' THEN format_type(t.typbasetype, t.typtypmod)
           WHEN 'r' THEN (SELECT format_type(r.rngsubtype, NULL) FROM pg_range r WHERE r.rngtypid = t.oid)
         END AS base_type,
         t.typnotnull AS not_null,
         CASE WHEN t.typtype = 'd' THEN pg_get_expr(t.typdefaultbin, 0) END AS default,
         CASE WHEN t.typtype = 'd' AND t.typcollation <> 0 AND t.typcollation <> (SELECT b.typcollation FROM pg_type b WHERE b.oid = t.typbasetype)
           THEN (SELECT quote_ident(cn.nspname) || '.' || quote_ident(co.collname) FROM pg_collation co JOIN pg_namespace cn ON cn.oid = co.collnamespace WHERE co.oid = t.typcollation)
         END AS collation
  FROM pg_type t
  JOIN pg_namespace n ON n.oid = t.typnamespace
  LEFT JOIN pg_class c ON c.oid = t.typrelid
  WHERE t.typtype IN ('e', 'd', 'c', 'r')
    AND (t.typtype <> 'c' OR c.relkind = 'c')
    AND {{userSchema "n"}}
    AND {{notExtensionMember "pg_type" "t.oid"}}
) x
