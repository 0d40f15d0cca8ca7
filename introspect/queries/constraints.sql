-- name: constraints
-- Table and domain constraints with their full definition (pg_get_constraintdef includes NOT
-- VALID, DEFERRABLE, and the referenced table and actions of a foreign key), and comments.
-- NOT NULL is a column attribute in PostgreSQL 15.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT n.nspname AS on_schema,
         coalesce(c.relname, t.typname) AS on_name,
         CASE WHEN co.conrelid OPERATOR(pg_catalog.<>) 0 THEN 'table' ELSE 'domain' END AS on_kind,
         co.conname AS name,
         CASE WHEN co.contype OPERATOR(pg_catalog.=) 'p' THEN 'primary key' WHEN co.contype OPERATOR(pg_catalog.=) 'u' THEN 'unique'
           WHEN co.contype OPERATOR(pg_catalog.=) 'f' THEN 'foreign key' WHEN co.contype OPERATOR(pg_catalog.=) 'c' THEN 'check'
           WHEN co.contype OPERATOR(pg_catalog.=) 'x' THEN 'exclusion' WHEN co.contype OPERATOR(pg_catalog.=) 't' THEN 'trigger' END AS type,
         pg_catalog.pg_get_constraintdef(co.oid) AS definition,
         {{comment "pg_constraint" "co.oid" "0"}} AS comment
  FROM pg_constraint co
  LEFT JOIN pg_class c ON c.oid OPERATOR(pg_catalog.=) co.conrelid
  LEFT JOIN pg_type t ON t.oid OPERATOR(pg_catalog.=) co.contypid
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) coalesce(c.relnamespace, t.typnamespace)
  WHERE (co.conrelid OPERATOR(pg_catalog.<>) 0 OR co.contypid OPERATOR(pg_catalog.<>) 0)
    AND co.conparentid OPERATOR(pg_catalog.=) 0
    AND {{userSchema "n"}}
    AND (co.conrelid OPERATOR(pg_catalog.=) 0 OR {{notExtensionMember "pg_class" "co.conrelid"}})
    AND (co.contypid OPERATOR(pg_catalog.=) 0 OR {{notExtensionMember "pg_type" "co.contypid"}})
) x
