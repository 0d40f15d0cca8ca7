-- name: views
-- Views and materialized views: definition (pg_get_viewdef, pretty), options such as
-- security_invoker, whether a materialized view is populated, owner, ACL, comment.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         c.relname AS name,
         CASE WHEN c.relkind OPERATOR(pg_catalog.=) 'v' THEN 'view' ELSE 'materialized view' END AS kind,
         {{role "c.relowner"}} AS owner,
         pg_catalog.pg_get_viewdef(c.oid, true) AS definition,
         c.reloptions AS options,
         c.relkind OPERATOR(pg_catalog.=) 'm' AND c.relispopulated AS populated,
         {{acl "coalesce(c.relacl, pg_catalog.acldefault('r', c.relowner))" "'r'"}} AS acl,
         {{comment "pg_class" "c.oid" "0"}} AS comment
  FROM pg_class c
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['v', 'm']::pg_catalog."char"[])
    AND {{userSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
) x
