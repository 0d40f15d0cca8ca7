-- name: rules
-- Rewrite rules on tables and views (CREATE RULE), not the _RETURN rule that makes a view: their
-- definition (pg_get_ruledef: the event, INSTEAD and the actions), enabled state and comment.
-- Also on tables in environment schemas such as auth.users: a sidecar may add those, and an
-- ON DELETE DO INSTEAD NOTHING silently turns a table's deletes into nothing.
-- Every function and operator is qualified: this runs on sessions that must never resolve a
-- name a migration could have defined.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS rel_schema,
         c.relname AS rel_name,
         r.rulename AS name,
         pg_catalog.pg_get_ruledef(r.oid) AS definition,
         CASE WHEN r.ev_enabled OPERATOR(pg_catalog.=) 'O' THEN 'origin'
              WHEN r.ev_enabled OPERATOR(pg_catalog.=) 'D' THEN 'disabled'
              WHEN r.ev_enabled OPERATOR(pg_catalog.=) 'R' THEN 'replica'
              WHEN r.ev_enabled OPERATOR(pg_catalog.=) 'A' THEN 'always' END AS enabled,
         {{comment "pg_rewrite" "r.oid" "0"}} AS comment
  FROM pg_catalog.pg_rewrite r
  JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r.ev_class
  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  WHERE r.rulename OPERATOR(pg_catalog.<>) '_RETURN'
    AND {{nonSystemSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
) x
