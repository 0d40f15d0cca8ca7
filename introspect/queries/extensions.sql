-- name: extensions
-- Installed extensions with their schema and version, wherever they live: which extensions a
-- migration creates, and where, is part of its footprint.
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT e.extname AS name, n.nspname AS schema, e.extversion AS version
  FROM pg_extension e
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
) x
