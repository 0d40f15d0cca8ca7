-- name: columns
-- The live columns of tables, views, materialized views and composite types, in order:
-- format_type with the typmod (vector(1536)), NOT NULL, default or generation expression,
-- identity, collation when not the type's default, column ACL (attacl, no default), comment.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS rel_schema,
         c.relname AS rel_name,
         a.attname AS name,
         pg_catalog.row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS position,
         pg_catalog.format_type(a.atttypid, a.atttypmod) AS type,
         a.attnotnull AS not_null,
         pg_catalog.pg_get_expr(d.adbin, d.adrelid) AS default,
         CASE WHEN a.attidentity OPERATOR(pg_catalog.=) 'a' THEN 'always' WHEN a.attidentity OPERATOR(pg_catalog.=) 'd' THEN 'by default' END AS identity,
         CASE WHEN a.attgenerated OPERATOR(pg_catalog.=) 's' THEN 'stored' END AS generated,
         CASE WHEN a.attcollation OPERATOR(pg_catalog.<>) 0 AND a.attcollation OPERATOR(pg_catalog.<>) t.typcollation
           THEN (SELECT pg_catalog.quote_ident(cn.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(co.collname) FROM pg_collation co JOIN pg_namespace cn ON cn.oid OPERATOR(pg_catalog.=) co.collnamespace WHERE co.oid OPERATOR(pg_catalog.=) a.attcollation)
         END AS collation,
         {{acl "a.attacl" "'c'"}} AS acl,
         {{comment "pg_class" "c.oid" "a.attnum"}} AS comment
  FROM pg_attribute a
  JOIN pg_class c ON c.oid OPERATOR(pg_catalog.=) a.attrelid
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  JOIN pg_type t ON t.oid OPERATOR(pg_catalog.=) a.atttypid
  LEFT JOIN pg_attrdef d ON d.adrelid OPERATOR(pg_catalog.=) a.attrelid AND d.adnum OPERATOR(pg_catalog.=) a.attnum
  WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p', 'f', 'v', 'm', 'c']::pg_catalog."char"[])
    AND a.attnum OPERATOR(pg_catalog.>) 0
    AND NOT a.attisdropped
    AND {{userSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
    AND (c.relkind OPERATOR(pg_catalog.<>) 'c' OR {{notExtensionMember "pg_type" "c.reltype"}})
) x
