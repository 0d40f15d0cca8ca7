-- name: sequences
-- Sequences (also those behind serial and identity columns): parameters, the column that owns
-- them, owner, ACL, comment.
SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT n.nspname AS schema,
         c.relname AS name,
         format_type(s.seqtypid, NULL) AS type,
         s.seqstart AS start,
         s.seqincrement AS increment,
         s.seqmin AS min,
         s.seqmax AS max,
         s.seqcache AS cache,
         s.seqcycle AS cycle,
         (SELECT json_build_array(tn.nspname, t.relname, a.attname)
            FROM pg_depend d
            JOIN pg_class t ON t.oid = d.refobjid
            JOIN pg_namespace tn ON tn.oid = t.relnamespace
            JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
           WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
             AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
           LIMIT 1) AS owned_by,
         {{role "c.relowner"}} AS owner,
         {{acl "coalesce(c.relacl, acldefault('s', c.relowner))" "'s'"}} AS acl,
         {{comment "pg_class" "c.oid" "0"}} AS comment
  FROM pg_sequence s
  JOIN pg_class c ON c.oid = s.seqrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE {{userSchema "n"}}
    AND {{notExtensionMember "pg_class" "c.oid"}}
) x
