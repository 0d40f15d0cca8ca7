-- name: constraints
-- Table and domain constraints with their full definition (pg_get_constraintdef includes NOT
-- VALID, DEFERRABLE, and the referenced table and actions of a foreign key), and comments.
-- NOT NULL is a column attribute in PostgreSQL 15.
SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT n.nspname AS on_schema,
         coalesce(c.relname, t.typname) AS on_name,
         CASE WHEN co.conrelid <> 0 THEN 'table' ELSE 'domain' END AS on_kind,
         co.conname AS name,
         CASE co.contype WHEN 'p' THEN 'primary key' WHEN 'u' THEN 'unique' WHEN 'f' THEN 'foreign key'
           WHEN 'c' THEN 'check' WHEN 'x' THEN 'exclusion' WHEN 't' THEN 'trigger' END AS type,
         pg_get_constraintdef(co.oid) AS definition,
         {{comment "pg_constraint" "co.oid" "0"}} AS comment
  FROM pg_constraint co
  LEFT JOIN pg_class c ON c.oid = co.conrelid
  LEFT JOIN pg_type t ON t.oid = co.contypid
  JOIN pg_namespace n ON n.oid = coalesce(c.relnamespace, t.typnamespace)
  WHERE (co.conrelid <> 0 OR co.contypid <> 0)
    AND co.conparentid = 0
    AND {{userSchema "n"}}
    AND (co.conrelid = 0 OR {{notExtensionMember "pg_class" "co.conrelid"}})
    AND (co.contypid = 0 OR {{notExtensionMember "pg_type" "co.contypid"}})
) x
