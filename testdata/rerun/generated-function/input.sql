-- The migration stamps a build number into two generated functions. In ledger_schema_version the
-- number is only in a comment (a cosmetic change on every run: a warning); in ledger_build it is
-- the result (a change of behaviour on every run: an error, shown as a diff of the body).
CREATE SEQUENCE IF NOT EXISTS public.ledger_build_seq;

DO $do$
DECLARE
  b bigint := nextval('public.ledger_build_seq');
BEGIN
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION public.ledger_schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE SET search_path = '' AS $b$
      -- build %s
      SELECT 2
    $b$ $f$, b);
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION public.ledger_build() RETURNS bigint
    LANGUAGE sql IMMUTABLE SET search_path = '' AS $b$
      SELECT %s::bigint
    $b$ $f$, b);
END
$do$;

NOTIFY pgrst, 'reload schema';
