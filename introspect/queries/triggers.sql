-- name: triggers
-- User triggers (not the internal ones behind foreign keys) with their definition and enabled
-- state. Also on tables in environment schemas such as auth.users: a sidecar may add those.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS rel_schema,
         c.relname AS rel_name,
         tg.tgname AS name,
         pg_catalog.pg_get_triggerdef(tg.oid) AS definition,
         CASE WHEN tg.tgenabled OPERATOR(pg_catalog.=) 'O' THEN 'origin' WHEN tg.tgenabled OPERATOR(pg_catalog.=) 'D' THEN 'disabled'
           WHEN tg.tgenabled OPERATOR(pg_catalog.=) 'R' THEN 'replica' WHEN tg.tgenabled OPERATOR(pg_catalog.=) 'A' THEN 'always' END AS enabled,
         {{comment "pg_trigger" "tg.oid" "0"}} AS comment
  FROM pg_trigger tg
  JOIN pg_class c ON c.oid OPERATOR(pg_catalog.=) tg.tgrelid
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  WHERE NOT tg.tgisinternal
    AND tg.tgparentid OPERATOR(pg_catalog.=) 0
    AND {{nonSystemSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
) x
