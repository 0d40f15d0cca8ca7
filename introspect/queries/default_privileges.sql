-- name: default_privileges
-- ALTER DEFAULT PRIVILEGES entries (pg_default_acl): for which role, in which schema (none:
-- everywhere), on which object type, with which ACL. Entries scoped to an environment schema are
-- left out unless environment schemas are included. acldefault names sequences 's' where
-- pg_default_acl says 'S'.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT {{role "d.defaclrole"}} AS role,
         n.nspname AS schema,
         CASE WHEN d.defaclobjtype OPERATOR(pg_catalog.=) 'r' THEN 'tables' WHEN d.defaclobjtype OPERATOR(pg_catalog.=) 'S' THEN 'sequences'
           WHEN d.defaclobjtype OPERATOR(pg_catalog.=) 'f' THEN 'functions' WHEN d.defaclobjtype OPERATOR(pg_catalog.=) 'T' THEN 'types'
           WHEN d.defaclobjtype OPERATOR(pg_catalog.=) 'n' THEN 'schemas' END AS object_type,
         {{acl "d.defaclacl" "CASE WHEN d.defaclobjtype OPERATOR(pg_catalog.=) 'S' THEN 's' ELSE d.defaclobjtype END"}} AS acl
  FROM pg_default_acl d
  LEFT JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) d.defaclnamespace
  WHERE d.defaclnamespace OPERATOR(pg_catalog.=) 0 OR {{userSchema "n"}}
) x
