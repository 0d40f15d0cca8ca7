-- name: aggregates
-- What makes an aggregate (pg_aggregate), beside what functions.sql reads of it as a function:
-- its kind (normal, ordered-set, hypothetical), transition, final, combine, serial and
-- deserial functions, state type and size, initial condition, sort operator, FINALFUNC_EXTRA
-- and FINALFUNC_MODIFY, and the moving-aggregate ones. Keyed like a function (schema, name,
-- arg_types), and attached to it.
-- Every function and operator is qualified: this runs on sessions that must never resolve a
-- name a migration could have defined. Functions and operators print through the reg* types'
-- output functions (built in), schema-qualified outside pg_catalog.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         p.proname AS name,
         pg_catalog.oidvectortypes(p.proargtypes) AS arg_types,
         CASE WHEN a.aggkind OPERATOR(pg_catalog.=) 'n' THEN 'normal'
              WHEN a.aggkind OPERATOR(pg_catalog.=) 'o' THEN 'ordered-set'
              WHEN a.aggkind OPERATOR(pg_catalog.=) 'h' THEN 'hypothetical' END AS kind,
         a.aggnumdirectargs AS direct_args,
         a.aggtransfn::pg_catalog.regprocedure::pg_catalog.text AS transition,
         pg_catalog.format_type(a.aggtranstype, NULL) AS state_type,
         a.aggtransspace AS state_space,
         coalesce(a.agginitval, '') AS initial_condition,
         CASE WHEN a.aggfinalfn OPERATOR(pg_catalog.=) 0 THEN '' ELSE a.aggfinalfn::pg_catalog.regprocedure::pg_catalog.text END AS final,
         a.aggfinalextra AS final_extra,
         CASE WHEN a.aggfinalmodify OPERATOR(pg_catalog.=) 'r' THEN 'read_only'
              WHEN a.aggfinalmodify OPERATOR(pg_catalog.=) 's' THEN 'shareable'
              WHEN a.aggfinalmodify OPERATOR(pg_catalog.=) 'w' THEN 'read_write' END AS final_modify,
         CASE WHEN a.aggcombinefn OPERATOR(pg_catalog.=) 0 THEN '' ELSE a.aggcombinefn::pg_catalog.regprocedure::pg_catalog.text END AS combine,
         CASE WHEN a.aggserialfn OPERATOR(pg_catalog.=) 0 THEN '' ELSE a.aggserialfn::pg_catalog.regprocedure::pg_catalog.text END AS serial,
         CASE WHEN a.aggdeserialfn OPERATOR(pg_catalog.=) 0 THEN '' ELSE a.aggdeserialfn::pg_catalog.regprocedure::pg_catalog.text END AS deserial,
         CASE WHEN a.aggsortop OPERATOR(pg_catalog.=) 0 THEN '' ELSE a.aggsortop::pg_catalog.regoperator::pg_catalog.text END AS sort_operator,
         CASE WHEN a.aggmtransfn OPERATOR(pg_catalog.=) 0 THEN '' ELSE a.aggmtransfn::pg_catalog.regprocedure::pg_catalog.text END AS moving_transition,
         CASE WHEN a.aggminvtransfn OPERATOR(pg_catalog.=) 0 THEN '' ELSE a.aggminvtransfn::pg_catalog.regprocedure::pg_catalog.text END AS moving_inverse,
         CASE WHEN a.aggmfinalfn OPERATOR(pg_catalog.=) 0 THEN '' ELSE a.aggmfinalfn::pg_catalog.regprocedure::pg_catalog.text END AS moving_final,
         CASE WHEN a.aggmtranstype OPERATOR(pg_catalog.=) 0 THEN '' ELSE pg_catalog.format_type(a.aggmtranstype, NULL) END AS moving_state_type,
         coalesce(a.aggminitval, '') AS moving_initial_condition
  FROM pg_catalog.pg_aggregate a
  JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) a.aggfnoid
  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_proc" "p.oid"}}
) x
