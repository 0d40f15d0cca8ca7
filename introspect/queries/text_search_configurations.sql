-- name: text_search_configurations
-- Text search configurations: the parser, the mapping of each token type to its dictionaries
-- (in order), owner and comment. A configuration decides what to_tsvector and to_tsquery
-- match. Token types are named through ts_token_type of the built-in parser only (OID 3722,
-- "default"): another parser's names would come from its own function, which a migration may
-- have defined, so its token types read as numbers.
-- Every function and operator is qualified: this runs on sessions that must never resolve a
-- name a migration could have defined. Dictionaries print through regdictionary's output
-- function (built in), schema-qualified outside pg_catalog.
WITH tokens AS (
  SELECT t.tokid, t.alias FROM pg_catalog.ts_token_type(3722::pg_catalog.oid) t
)
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         c.cfgname AS name,
         pn.nspname OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) prs.prsname AS parser,
         (SELECT pg_catalog.json_agg(pg_catalog.json_build_object('token', m.token, 'dictionaries', m.dictionaries) ORDER BY m.token)
            FROM (SELECT coalesce(tk.alias, mp.maptokentype::pg_catalog.text) AS token,
                         pg_catalog.string_agg(mp.mapdict::pg_catalog.regdictionary::pg_catalog.text, ', ' ORDER BY mp.mapseqno) AS dictionaries
                    FROM pg_catalog.pg_ts_config_map mp
                    LEFT JOIN tokens tk ON c.cfgparser OPERATOR(pg_catalog.=) 3722::pg_catalog.oid
                                       AND tk.tokid OPERATOR(pg_catalog.=) mp.maptokentype
                   WHERE mp.mapcfg OPERATOR(pg_catalog.=) c.oid
                   GROUP BY 1) m) AS mapping,
         {{role "c.cfgowner"}} AS owner,
         {{comment "pg_ts_config" "c.oid" "0"}} AS comment
  FROM pg_catalog.pg_ts_config c
  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.cfgnamespace
  JOIN pg_catalog.pg_ts_parser prs ON prs.oid OPERATOR(pg_catalog.=) c.cfgparser
  JOIN pg_catalog.pg_namespace pn ON pn.oid OPERATOR(pg_catalog.=) prs.prsnamespace
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_ts_config" "c.oid"}}
) x
