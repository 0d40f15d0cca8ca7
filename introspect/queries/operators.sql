-- name: operators
-- User-defined operators: identity schema.name(left, right) ("NONE" for a prefix operator's
-- left), the function, result, commutator, negator, selectivity estimators, HASHES and MERGES,
-- owner and comment. An operator in an exposed schema can shadow a built-in one for every
-- caller whose search_path reaches it first.
-- Every function and operator is qualified: this runs on sessions that must never resolve a
-- name a migration could have defined. Object references print through the reg* types' output
-- functions (built in), schema-qualified outside pg_catalog under the snapshot's empty
-- search_path.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         o.oprname AS name,
         CASE WHEN o.oprleft OPERATOR(pg_catalog.=) 0 THEN 'NONE' ELSE pg_catalog.format_type(o.oprleft, NULL) END AS left_type,
         pg_catalog.format_type(o.oprright, NULL) AS right_type,
         pg_catalog.format_type(o.oprresult, NULL) AS result,
         CASE WHEN o.oprcode OPERATOR(pg_catalog.=) 0 THEN '' ELSE o.oprcode::pg_catalog.regprocedure::pg_catalog.text END AS function,
         CASE WHEN o.oprcom OPERATOR(pg_catalog.=) 0 THEN '' ELSE o.oprcom::pg_catalog.regoperator::pg_catalog.text END AS commutator,
         CASE WHEN o.oprnegate OPERATOR(pg_catalog.=) 0 THEN '' ELSE o.oprnegate::pg_catalog.regoperator::pg_catalog.text END AS negator,
         CASE WHEN o.oprrest OPERATOR(pg_catalog.=) 0 THEN '' ELSE o.oprrest::pg_catalog.regprocedure::pg_catalog.text END AS restrict,
         CASE WHEN o.oprjoin OPERATOR(pg_catalog.=) 0 THEN '' ELSE o.oprjoin::pg_catalog.regprocedure::pg_catalog.text END AS join,
         o.oprcanhash AS hashes,
         o.oprcanmerge AS merges,
         {{role "o.oprowner"}} AS owner,
         {{comment "pg_operator" "o.oid" "0"}} AS comment
  FROM pg_catalog.pg_operator o
  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) o.oprnamespace
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_operator" "o.oid"}}
) x
