-- name: columns
-- The live columns of tables, views, materialized views and composite types, in order:
-- format_type with the typmod (vector(1536)), NOT NULL, default or generation expression,
-- identity, collation when not the type's default, column ACL (attacl, no default), comment.
SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT n.nspname AS rel_schema,
         c.relname AS rel_name,
         a.attname AS name,
         row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS position,
         format_type(a.atttypid, a.atttypmod) AS type,
         a.attnotnull AS not_null,
         pg_get_expr(d.adbin, d.adrelid) AS default,
         CASE a.attidentity WHEN 'a' THEN 'always' WHEN 'd' THEN 'by default' END AS identity,
         CASE a.attgenerated WHEN 's' THEN 'stored' END AS generated,
         CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation
           THEN (SELECT quote_ident(cn.nspname) || '.' || quote_ident(co.collname) FROM pg_collation co JOIN pg_namespace cn ON cn.oid = co.collnamespace WHERE co.oid = a.attcollation)
         END AS collation,
         {{acl "a.attacl" "'c'"}} AS acl,
         {{comment "pg_class" "c.oid" "a.attnum"}} AS comment
  FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_type t ON t.oid = a.atttypid
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE c.relkind IN ('r', 'p', 'f', 'v', 'm', 'c')
    AND a.attnum > 0
    AND NOT a.attisdropped
    AND {{userSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
    AND (c.relkind <> 'c' OR {{notExtensionMember "pg_type" "c.reltype"}})
) x
