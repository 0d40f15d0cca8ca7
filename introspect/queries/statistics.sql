-- name: statistics
-- Extended statistics objects (CREATE STATISTICS): the table, the definition
-- (pg_get_statisticsobjdef: kinds, columns and expressions), the statistics target when one was
-- set (ALTER STATISTICS ... SET STATISTICS; the default reads empty, -1 on 15 and NULL on 17),
-- owner and comment. They change the planner's estimates, and so its plans.
-- Every function and operator is qualified: this runs on sessions that must never resolve a
-- name a migration could have defined.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         s.stxname AS name,
         tn.nspname AS rel_schema,
         t.relname AS rel_name,
         pg_catalog.pg_get_statisticsobjdef(s.oid) AS definition,
         CASE WHEN coalesce(s.stxstattarget::pg_catalog.int4, -1) OPERATOR(pg_catalog.=) -1 THEN ''
              ELSE s.stxstattarget::pg_catalog.text END AS target,
         {{role "s.stxowner"}} AS owner,
         {{comment "pg_statistic_ext" "s.oid" "0"}} AS comment
  FROM pg_catalog.pg_statistic_ext s
  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) s.stxnamespace
  JOIN pg_catalog.pg_class t ON t.oid OPERATOR(pg_catalog.=) s.stxrelid
  JOIN pg_catalog.pg_namespace tn ON tn.oid OPERATOR(pg_catalog.=) t.relnamespace
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_statistic_ext" "s.oid"}}
) x
