-- name: functions
-- Functions, procedures, aggregates and window functions, every property as its own attribute:
-- argument types (the identity), full arguments with names and defaults, result, language,
-- volatility, strict, security definer, leakproof, parallel, cost, rows, config (SET
-- search_path ...), owner, ACL (NULL expanded, so the implicit EXECUTE to PUBLIC shows), comment,
-- and the body (prosrc, or the deparsed BEGIN ATOMIC body).
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         p.proname AS name,
         pg_catalog.oidvectortypes(p.proargtypes) AS arg_types,
         CASE WHEN p.prokind OPERATOR(pg_catalog.=) 'f' THEN 'function' WHEN p.prokind OPERATOR(pg_catalog.=) 'p' THEN 'procedure'
           WHEN p.prokind OPERATOR(pg_catalog.=) 'a' THEN 'aggregate' WHEN p.prokind OPERATOR(pg_catalog.=) 'w' THEN 'window' END AS kind,
         pg_catalog.pg_get_function_arguments(p.oid) AS arguments,
         pg_catalog.pg_get_function_result(p.oid) AS result,
         l.lanname AS language,
         CASE WHEN p.provolatile OPERATOR(pg_catalog.=) 'i' THEN 'immutable' WHEN p.provolatile OPERATOR(pg_catalog.=) 's' THEN 'stable' ELSE 'volatile' END AS volatility,
         p.proisstrict AS strict,
         p.prosecdef AS security_definer,
         p.proleakproof AS leakproof,
         CASE WHEN p.proparallel OPERATOR(pg_catalog.=) 's' THEN 'safe' WHEN p.proparallel OPERATOR(pg_catalog.=) 'r' THEN 'restricted' ELSE 'unsafe' END AS parallel,
         p.procost AS cost,
         p.prorows AS rows,
         p.proconfig AS config,
         {{role "p.proowner"}} AS owner,
         {{acl "coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))" "'f'"}} AS acl,
         {{comment "pg_proc" "p.oid" "0"}} AS comment,
         CASE WHEN p.prosqlbody IS NOT NULL THEN pg_catalog.pg_get_function_sqlbody(p.oid) ELSE p.prosrc END AS body
  FROM pg_proc p
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
  JOIN pg_language l ON l.oid OPERATOR(pg_catalog.=) p.prolang
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_proc" "p.oid"}}
) x
