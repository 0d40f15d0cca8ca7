-- name: types
-- User-defined enum, domain, composite (stand-alone, not a table's row type) and range types.
-- Enum labels come in their sort order; a domain's CHECK constraints come from constraints.sql
-- and a composite type's attributes from columns.sql.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         t.typname AS name,
         CASE WHEN t.typtype OPERATOR(pg_catalog.=) 'e' THEN 'enum' WHEN t.typtype OPERATOR(pg_catalog.=) 'd' THEN 'domain'
           WHEN t.typtype OPERATOR(pg_catalog.=) 'c' THEN 'composite' WHEN t.typtype OPERATOR(pg_catalog.=) 'r' THEN 'range' END AS kind,
         {{role "t.typowner"}} AS owner,
         {{acl "coalesce(t.typacl, pg_catalog.acldefault('T', t.typowner))" "'T'"}} AS acl,
         {{comment "pg_type" "t.oid" "0"}} AS comment,
         CASE WHEN t.typtype OPERATOR(pg_catalog.=) 'e' THEN
           (SELECT pg_catalog.json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid OPERATOR(pg_catalog.=) t.oid)
         END AS labels,
         CASE
           WHEN t.typtype OPERATOR(pg_catalog.=) 'd' THEN pg_catalog.format_type(t.typbasetype, t.typtypmod)
           WHEN t.typtype OPERATOR(pg_catalog.=) 'r' THEN (SELECT pg_catalog.format_type(r.rngsubtype, NULL) FROM pg_range r WHERE r.rngtypid OPERATOR(pg_catalog.=) t.oid)
         END AS base_type,
         t.typnotnull AS not_null,
         CASE WHEN t.typtype OPERATOR(pg_catalog.=) 'd' THEN pg_catalog.pg_get_expr(t.typdefaultbin, 0) END AS default,
         CASE WHEN t.typtype OPERATOR(pg_catalog.=) 'd' AND t.typcollation OPERATOR(pg_catalog.<>) 0
                AND t.typcollation OPERATOR(pg_catalog.<>) (SELECT b.typcollation FROM pg_type b WHERE b.oid OPERATOR(pg_catalog.=) t.typbasetype)
           THEN (SELECT pg_catalog.quote_ident(cn.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(co.collname) FROM pg_collation co JOIN pg_namespace cn ON cn.oid OPERATOR(pg_catalog.=) co.collnamespace WHERE co.oid OPERATOR(pg_catalog.=) t.typcollation)
         END AS collation
  FROM pg_type t
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) t.typnamespace
  LEFT JOIN pg_class c ON c.oid OPERATOR(pg_catalog.=) t.typrelid
  WHERE t.typtype OPERATOR(pg_catalog.=) ANY (ARRAY['e', 'd', 'c', 'r']::pg_catalog."char"[])
    AND (t.typtype OPERATOR(pg_catalog.<>) 'c' OR c.relkind OPERATOR(pg_catalog.=) 'c')
    AND {{userSchema "n"}}
    AND {{notExtensionMember "pg_type" "t.oid"}}
) x
