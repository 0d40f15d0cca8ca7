-- name: tables
-- Ordinary, partitioned and foreign tables: RLS enabled and forced, storage parameters,
-- partitioning, inheritance, replica identity, owner, ACL, comment.
SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         c.relname AS name,
         CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table' WHEN 'f' THEN 'foreign table' END AS kind,
         CASE c.relpersistence WHEN 'u' THEN 'unlogged' ELSE 'permanent' END AS persistence,
         {{role "c.relowner"}} AS owner,
         c.relrowsecurity AS rls,
         c.relforcerowsecurity AS force_rls,
         CASE c.relreplident WHEN 'd' THEN 'default' WHEN 'n' THEN 'nothing' WHEN 'f' THEN 'full' WHEN 'i' THEN 'index' END AS replica_identity,
         c.reloptions AS options,
         CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS partition_key,
         CASE WHEN c.relispartition THEN
           (SELECT pc.oid::regclass::text FROM pg_inherits i JOIN pg_class pc ON pc.oid = i.inhparent WHERE i.inhrelid = c.oid)
         END AS partition_of,
         CASE WHEN c.relispartition THEN pg_get_expr(c.relpartbound, c.oid) END AS partition_bound,
         CASE WHEN NOT c.relispartition THEN
           (SELECT json_agg(i.inhparent::regclass::text ORDER BY i.inhseqno) FROM pg_inherits i WHERE i.inhrelid = c.oid)
         END AS inherits,
         {{acl "coalesce(c.relacl, acldefault('r', c.relowner))" "'r'"}} AS acl,
         {{comment "pg_class" "c.oid" "0"}} AS comment
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'f')
    AND {{userSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
) x
