-- name: sequences
-- Sequences (also those behind serial and identity columns): parameters, the column that owns
-- them, owner, ACL, comment.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         c.relname AS name,
         pg_catalog.format_type(s.seqtypid, NULL) AS type,
         s.seqstart AS start,
         s.seqincrement AS increment,
         s.seqmin AS min,
         s.seqmax AS max,
         s.seqcache AS cache,
         s.seqcycle AS cycle,
         (SELECT pg_catalog.json_build_array(tn.nspname, t.relname, a.attname)
            FROM pg_depend d
            JOIN pg_class t ON t.oid OPERATOR(pg_catalog.=) d.refobjid
            JOIN pg_namespace tn ON tn.oid OPERATOR(pg_catalog.=) t.relnamespace
            JOIN pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) d.refobjid AND a.attnum OPERATOR(pg_catalog.=) d.refobjsubid
           WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid OPERATOR(pg_catalog.=) c.oid
             AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
             AND d.deptype OPERATOR(pg_catalog.=) ANY (ARRAY['a', 'i']::pg_catalog."char"[])
           LIMIT 1) AS owned_by,
         {{role "c.relowner"}} AS owner,
         {{acl "coalesce(c.relacl, pg_catalog.acldefault('s', c.relowner))" "'s'"}} AS acl,
         {{comment "pg_class" "c.oid" "0"}} AS comment
  FROM pg_sequence s
  JOIN pg_class c ON c.oid OPERATOR(pg_catalog.=) s.seqrelid
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
) x
