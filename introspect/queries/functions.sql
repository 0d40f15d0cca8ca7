-- name: functions
-- Functions, procedures, aggregates and window functions, every property as its own attribute:
-- argument types (the identity), full arguments with names and defaults, result, language,
-- volatility, strict, security definer, leakproof, parallel, cost, rows, config (SET
-- search_path ...), owner, ACL (NULL expanded, so the implicit EXECUTE to PUBLIC shows), comment,
-- and the body (prosrc, or the deparsed BEGIN ATOMIC body).
SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         p.proname AS name,
         oidvectortypes(p.proargtypes) AS arg_types,
         CASE p.prokind WHEN 'f' THEN 'function' WHEN 'p' THEN 'procedure' WHEN 'a' THEN 'aggregate' WHEN 'w' THEN 'window' END AS kind,
         pg_get_function_arguments(p.oid) AS arguments,
         pg_get_function_result(p.oid) AS result,
         l.lanname AS language,
         CASE p.provolatile WHEN 'i' THEN 'immutable' WHEN 's' THEN 'stable' ELSE 'volatile' END AS volatility,
         p.proisstrict AS strict,
         p.prosecdef AS security_definer,
         p.proleakproof AS leakproof,
         CASE p.proparallel WHEN 's' THEN 'safe' WHEN 'r' THEN 'restricted' ELSE 'unsafe' END AS parallel,
         p.procost AS cost,
         p.prorows AS rows,
         p.proconfig AS config,
         {{role "p.proowner"}} AS owner,
         {{acl "coalesce(p.proacl, acldefault('f', p.proowner))" "'f'"}} AS acl,
         {{comment "pg_proc" "p.oid" "0"}} AS comment,
         CASE WHEN p.prosqlbody IS NOT NULL THEN pg_get_function_sqlbody(p.oid) ELSE p.prosrc END AS body
  FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_language l ON l.oid = p.prolang
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_proc" "p.oid"}}
) x
