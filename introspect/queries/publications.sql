-- name: publications
-- Publications (logical replication): FOR ALL TABLES, the operations published, publish_via_
-- partition_root, owner, comment, and what they publish: each table with its column list and
-- row filter, each schema of FOR TABLES IN SCHEMA. A publication has no schema and is always
-- kept: adding a sidecar's table to the environment's supabase_realtime streams its rows.
-- Every function and operator is qualified: this runs on sessions that must never resolve a
-- name a migration could have defined.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT p.pubname AS name,
         p.puballtables AS all_tables,
         pg_catalog.concat_ws(', ', CASE WHEN p.pubinsert THEN 'insert' END, CASE WHEN p.pubupdate THEN 'update' END,
                              CASE WHEN p.pubdelete THEN 'delete' END, CASE WHEN p.pubtruncate THEN 'truncate' END) AS publish,
         p.pubviaroot AS via_root,
         (SELECT pg_catalog.json_agg(pg_catalog.json_build_object('rel_schema', tn.nspname, 'rel_name', t.relname,
                   'columns', (SELECT pg_catalog.json_agg(a.attname ORDER BY a.attnum)
                                 FROM pg_catalog.pg_attribute a
                                WHERE a.attrelid OPERATOR(pg_catalog.=) r.prrelid
                                  AND a.attnum OPERATOR(pg_catalog.=) ANY (r.prattrs::pg_catalog.int2[])),
                   'where', pg_catalog.pg_get_expr(r.prqual, r.prrelid)))
            FROM pg_catalog.pg_publication_rel r
            JOIN pg_catalog.pg_class t ON t.oid OPERATOR(pg_catalog.=) r.prrelid
            JOIN pg_catalog.pg_namespace tn ON tn.oid OPERATOR(pg_catalog.=) t.relnamespace
           WHERE r.prpubid OPERATOR(pg_catalog.=) p.oid) AS tables,
         (SELECT pg_catalog.json_agg(sn.nspname ORDER BY sn.nspname)
            FROM pg_catalog.pg_publication_namespace pns
            JOIN pg_catalog.pg_namespace sn ON sn.oid OPERATOR(pg_catalog.=) pns.pnnspid
           WHERE pns.pnpubid OPERATOR(pg_catalog.=) p.oid) AS schemas,
         {{role "p.pubowner"}} AS owner,
         {{comment "pg_publication" "p.oid" "0"}} AS comment
  FROM pg_catalog.pg_publication p
  WHERE {{notExtensionMember "pg_publication" "p.oid"}}
) x
