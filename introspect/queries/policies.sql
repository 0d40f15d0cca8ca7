-- name: policies
-- Row-level security policies: permissive or restrictive, command, roles (a set; PUBLIC when
-- none is named), USING and WITH CHECK, comment. Also on tables in environment schemas such as
-- storage.objects: a sidecar may add those.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS rel_schema,
         c.relname AS rel_name,
         p.polname AS name,
         p.polpermissive AS permissive,
         CASE WHEN p.polcmd OPERATOR(pg_catalog.=) '*' THEN 'all' WHEN p.polcmd OPERATOR(pg_catalog.=) 'r' THEN 'select' WHEN p.polcmd OPERATOR(pg_catalog.=) 'a' THEN 'insert'
           WHEN p.polcmd OPERATOR(pg_catalog.=) 'w' THEN 'update' WHEN p.polcmd OPERATOR(pg_catalog.=) 'd' THEN 'delete' END AS command,
         (SELECT pg_catalog.json_agg(DISTINCT CASE WHEN r OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC' ELSE {{role "r"}} END) FROM pg_catalog.unnest(p.polroles) r) AS roles,
         pg_catalog.pg_get_expr(p.polqual, p.polrelid) AS using,
         pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid) AS with_check,
         {{comment "pg_policy" "p.oid" "0"}} AS comment
  FROM pg_policy p
  JOIN pg_class c ON c.oid OPERATOR(pg_catalog.=) p.polrelid
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  WHERE {{nonSystemSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
) x
