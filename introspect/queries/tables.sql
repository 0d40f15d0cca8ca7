-- name: tables
-- Ordinary, partitioned and foreign tables: RLS enabled and forced, storage parameters,
-- partitioning, inheritance, replica identity, owner, ACL, comment.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         c.relname AS name,
         CASE WHEN c.relkind OPERATOR(pg_catalog.=) 'r' THEN 'table' WHEN c.relkind OPERATOR(pg_catalog.=) 'p' THEN 'partitioned table'
           WHEN c.relkind OPERATOR(pg_catalog.=) 'f' THEN 'foreign table' END AS kind,
         CASE WHEN c.relpersistence OPERATOR(pg_catalog.=) 'u' THEN 'unlogged' ELSE 'permanent' END AS persistence,
         {{role "c.relowner"}} AS owner,
         c.relrowsecurity AS rls,
         c.relforcerowsecurity AS force_rls,
         CASE WHEN c.relreplident OPERATOR(pg_catalog.=) 'd' THEN 'default' WHEN c.relreplident OPERATOR(pg_catalog.=) 'n' THEN 'nothing'
           WHEN c.relreplident OPERATOR(pg_catalog.=) 'f' THEN 'full' WHEN c.relreplident OPERATOR(pg_catalog.=) 'i' THEN 'index' END AS replica_identity,
         c.reloptions AS options,
         CASE WHEN c.relkind OPERATOR(pg_catalog.=) 'p' THEN pg_catalog.pg_get_partkeydef(c.oid) END AS partition_key,
         CASE WHEN c.relispartition THEN
           (SELECT pc.oid::pg_catalog.regclass::pg_catalog.text FROM pg_inherits i JOIN pg_class pc ON pc.oid OPERATOR(pg_catalog.=) i.inhparent WHERE i.inhrelid OPERATOR(pg_catalog.=) c.oid)
         END AS partition_of,
         CASE WHEN c.relispartition THEN pg_catalog.pg_get_expr(c.relpartbound, c.oid) END AS partition_bound,
         CASE WHEN NOT c.relispartition THEN
           (SELECT pg_catalog.json_agg(i.inhparent::pg_catalog.regclass::pg_catalog.text ORDER BY i.inhseqno) FROM pg_inherits i WHERE i.inhrelid OPERATOR(pg_catalog.=) c.oid)
         END AS inherits,
         {{acl "coalesce(c.relacl, pg_catalog.acldefault('r', c.relowner))" "'r'"}} AS acl,
         {{comment "pg_class" "c.oid" "0"}} AS comment
  FROM pg_class c
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p', 'f']::pg_catalog."char"[])
    AND {{userSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
) x
