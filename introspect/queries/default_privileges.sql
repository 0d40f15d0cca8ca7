-- name: default_privileges
-- ALTER DEFAULT PRIVILEGES entries (pg_default_acl): for which role, in which schema (none:
-- everywhere), on which object type, with which ACL. Entries scoped to an environment schema are
-- left out unless environment schemas are included. acldefault names sequences 's' where
-- pg_default_acl says 'S'.
SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT {{role "d.defaclrole"}} AS role,
         n.nspname AS schema,
         CASE d.defaclobjtype WHEN 'r' THEN 'tables' WHEN 'S' THEN 'sequences' WHEN 'f' THEN 'functions'
           WHEN 'T' THEN 'types' WHEN 'n' THEN 'schemas' END AS object_type,
         {{acl "d.defaclacl" "CASE d.defaclobjtype WHEN 'S' THEN 's' ELSE d.defaclobjtype END"}} AS acl
  FROM pg_default_acl d
  LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace
  WHERE d.defaclnamespace = 0 OR {{userSchema "n"}}
) x
