-- name: policies
-- Row-level security policies: permissive or restrictive, command, roles (a set; PUBLIC when
-- none is named), USING and WITH CHECK, comment. Also on tables in environment schemas such as
-- storage.objects: a sidecar may add those.
SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT n.nspname AS rel_schema,
         c.relname AS rel_name,
         p.polname AS name,
         p.polpermissive AS permissive,
         CASE p.polcmd WHEN '*' THEN 'all' WHEN 'r' THEN 'select' WHEN 'a' THEN 'insert' WHEN 'w' THEN 'update' WHEN 'd' THEN 'delete' END AS command,
         (SELECT json_agg(DISTINCT CASE WHEN r = 0 THEN 'PUBLIC' ELSE {{role "r"}} END) FROM unnest(p.polroles) r) AS roles,
         pg_get_expr(p.polqual, p.polrelid) AS using,
         pg_get_expr(p.polwithcheck, p.polrelid) AS with_check,
         {{comment "pg_policy" "p.oid" "0"}} AS comment
  FROM pg_policy p
  JOIN pg_class c ON c.oid = p.polrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE {{nonSystemSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
) x
