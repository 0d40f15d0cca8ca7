-- name: event_triggers
-- Event triggers: the event, the command tags (sorted), the function, enabled state, owner and
-- comment. They run on every DDL command of the database, whoever issues it. An event trigger
-- has no schema; it is kept when its function lies in a snapshot schema (the environment's own
-- call functions in extensions).
-- Every function and operator is qualified: this runs on sessions that must never resolve a
-- name a migration could have defined.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT e.evtname AS name,
         e.evtevent AS event,
         (SELECT pg_catalog.json_agg(tag ORDER BY tag) FROM pg_catalog.unnest(e.evttags) tag) AS tags,
         e.evtfoid::pg_catalog.regprocedure::pg_catalog.text AS function,
         CASE WHEN e.evtenabled OPERATOR(pg_catalog.=) 'O' THEN 'origin'
              WHEN e.evtenabled OPERATOR(pg_catalog.=) 'D' THEN 'disabled'
              WHEN e.evtenabled OPERATOR(pg_catalog.=) 'R' THEN 'replica'
              WHEN e.evtenabled OPERATOR(pg_catalog.=) 'A' THEN 'always' END AS enabled,
         {{role "e.evtowner"}} AS owner,
         {{comment "pg_event_trigger" "e.oid" "0"}} AS comment
  FROM pg_catalog.pg_event_trigger e
  JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) e.evtfoid
  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_event_trigger" "e.oid"}}
) x
