-- name: indexes
-- Indexes of tables and materialized views: the whole pg_get_indexdef (method, opclasses,
-- predicate, INCLUDE, storage parameters such as hnsw m), plus method, predicate and options as
-- their own attributes, the constraint an index implements, comment.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT tn.nspname AS rel_schema,
         t.relname AS rel_name,
         n.nspname AS schema,
         c.relname AS name,
         pg_catalog.pg_get_indexdef(i.indexrelid) AS definition,
         am.amname AS method,
         i.indisunique AS unique,
         i.indisprimary AS primary,
         pg_catalog.pg_get_expr(i.indpred, i.indrelid) AS predicate,
         c.reloptions AS options,
         co.conname AS constraint,
         {{comment "pg_class" "c.oid" "0"}} AS comment
  FROM pg_index i
  JOIN pg_class c ON c.oid OPERATOR(pg_catalog.=) i.indexrelid
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  JOIN pg_class t ON t.oid OPERATOR(pg_catalog.=) i.indrelid
  JOIN pg_namespace tn ON tn.oid OPERATOR(pg_catalog.=) t.relnamespace
  JOIN pg_am am ON am.oid OPERATOR(pg_catalog.=) c.relam
  -- pg_constraint has no index on conindid: a join, not a lookup per index.
  LEFT JOIN pg_constraint co ON co.conindid OPERATOR(pg_catalog.=) i.indexrelid AND co.conrelid OPERATOR(pg_catalog.=) i.indrelid
                           AND co.contype OPERATOR(pg_catalog.=) ANY (ARRAY['p', 'u', 'x']::pg_catalog."char"[])
  WHERE {{userSchema "tn"}}
    AND {{notExtensionMember "pg_class" "t.oid"}}
) x
