-- name: casts
-- Casts created after initdb (built-in ones have smaller OIDs) that are not an extension's:
-- identity (source AS target), the function (or none), the context (explicit, assignment,
-- implicit) and method (function, inout, binary), comment. A cast has no schema; it is kept when
-- its source type, target type or function lies in a snapshot schema, or when all three are
-- PostgreSQL's own (a superuser's cast between built-in types). An implicit or AS json cast on
-- a type changes what every expression and to_json of it does.
-- Every function and operator is qualified: this runs on sessions that must never resolve a
-- name a migration could have defined.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT pg_catalog.format_type(c.castsource, NULL) AS source,
         pg_catalog.format_type(c.casttarget, NULL) AS target,
         CASE WHEN c.castfunc OPERATOR(pg_catalog.=) 0 THEN '' ELSE c.castfunc::pg_catalog.regprocedure::pg_catalog.text END AS function,
         CASE WHEN c.castcontext OPERATOR(pg_catalog.=) 'e' THEN 'explicit'
              WHEN c.castcontext OPERATOR(pg_catalog.=) 'a' THEN 'assignment'
              WHEN c.castcontext OPERATOR(pg_catalog.=) 'i' THEN 'implicit' END AS context,
         CASE WHEN c.castmethod OPERATOR(pg_catalog.=) 'f' THEN 'function'
              WHEN c.castmethod OPERATOR(pg_catalog.=) 'i' THEN 'inout'
              WHEN c.castmethod OPERATOR(pg_catalog.=) 'b' THEN 'binary' END AS method,
         {{comment "pg_cast" "c.oid" "0"}} AS comment
  FROM pg_catalog.pg_cast c
  JOIN pg_catalog.pg_type st ON st.oid OPERATOR(pg_catalog.=) c.castsource
  JOIN pg_catalog.pg_namespace sn ON sn.oid OPERATOR(pg_catalog.=) st.typnamespace
  JOIN pg_catalog.pg_type tt ON tt.oid OPERATOR(pg_catalog.=) c.casttarget
  JOIN pg_catalog.pg_namespace tn ON tn.oid OPERATOR(pg_catalog.=) tt.typnamespace
  LEFT JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) c.castfunc
  LEFT JOIN pg_catalog.pg_namespace fn ON fn.oid OPERATOR(pg_catalog.=) p.pronamespace
  WHERE c.oid OPERATOR(pg_catalog.>=) 16384::pg_catalog.oid
    AND {{notExtensionMember "pg_cast" "c.oid"}}
    AND ({{userSchema "sn"}} OR {{userSchema "tn"}} OR (fn.oid IS NOT NULL AND {{userSchema "fn"}})
         OR (NOT {{nonSystemSchema "sn"}} AND NOT {{nonSystemSchema "tn"}} AND (fn.oid IS NULL OR NOT {{nonSystemSchema "fn"}})))
) x
