-- name: schemas
-- The user schemas: owner, ACL (NULL expanded to the built-in default), comment.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS name,
         {{role "n.nspowner"}} AS owner,
         {{acl "coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner))" "'n'"}} AS acl,
         {{comment "pg_namespace" "n.oid" "0"}} AS comment
  FROM pg_namespace n
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_namespace" "n.oid"}}
) x
