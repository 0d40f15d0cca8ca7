-- name: text_search_dictionaries
-- Text search dictionaries: the template, the options given to it (as stored: stopwords =
-- 'english', accept = false), owner and comment. A dictionary decides which words a text search
-- configuration that maps to it keeps, and how it normalizes them.
-- Every function and operator is qualified: this runs on sessions that must never resolve a
-- name a migration could have defined.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         d.dictname AS name,
         tn.nspname OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) tm.tmplname AS template,
         d.dictinitoption AS options,
         {{role "d.dictowner"}} AS owner,
         {{comment "pg_ts_dict" "d.oid" "0"}} AS comment
  FROM pg_catalog.pg_ts_dict d
  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) d.dictnamespace
  JOIN pg_catalog.pg_ts_template tm ON tm.oid OPERATOR(pg_catalog.=) d.dicttemplate
  JOIN pg_catalog.pg_namespace tn ON tn.oid OPERATOR(pg_catalog.=) tm.tmplnamespace
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_ts_dict" "d.oid"}}
) x
