-- name: triggers
-- User triggers (not the internal ones behind foreign keys) with their definition and enabled
-- state. Also on tables in environment schemas such as auth.users: a sidecar may add those.
SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT n.nspname AS rel_schema,
         c.relname AS rel_name,
         tg.tgname AS name,
         pg_get_triggerdef(tg.oid) AS definition,
         CASE tg.tgenabled WHEN 'O' THEN 'origin' WHEN 'D' THEN 'disabled' WHEN 'R' THEN 'replica' WHEN 'A' THEN 'always' END AS enabled,
         {{comment "pg_trigger" "tg.oid" "0"}} AS comment
  FROM pg_trigger tg
  JOIN pg_class c ON c.oid = tg.tgrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE NOT tg.tgisinternal
    AND tg.tgparentid = 0
    AND {{nonSystemSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
) x
