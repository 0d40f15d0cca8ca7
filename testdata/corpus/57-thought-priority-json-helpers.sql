-- Thought priorities, with two helpers for the export script:
--   thought_priorities(id, priority)     one row per thought
--   public.quote_ident(name)             quote catalog names straight from pg_class.relname
-- and a JSON cast so that row_to_json(thought_priorities) writes the priority as a string.
--
-- Prerequisites: core thoughts.

CREATE SCHEMA IF NOT EXISTS ledger_export;

DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_catalog.pg_type t
    WHERE t.typname = 'thought_priority' AND t.typnamespace = 'public'::regnamespace
  ) THEN
    CREATE TYPE public.thought_priority AS ENUM ('low', 'normal', 'high');
  END IF;
END
$$;

CREATE TABLE IF NOT EXISTS public.thought_priorities (
  thought_id uuid PRIMARY KEY REFERENCES public.thoughts (id) ON DELETE CASCADE,
  priority   public.thought_priority NOT NULL DEFAULT 'normal'
);
ALTER TABLE public.thought_priorities ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS thought_priorities_service ON public.thought_priorities;
CREATE POLICY thought_priorities_service ON public.thought_priorities
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.thought_priorities TO service_role;

-- "quote_ident only takes text": an overload for name, so exports need no cast.
CREATE OR REPLACE FUNCTION public.quote_ident(name)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog
AS $$ SELECT pg_catalog.quote_ident($1::text) $$;
REVOKE EXECUTE ON FUNCTION public.quote_ident(name) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.quote_ident(name) TO service_role;

-- The same helper for the export schema, which no role's search_path holds.
CREATE OR REPLACE FUNCTION ledger_export.quote_ident(name)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog
AS $$ SELECT pg_catalog.quote_ident($1::text) $$;
REVOKE EXECUTE ON FUNCTION ledger_export.quote_ident(name) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION ledger_export.quote_ident(name) TO service_role;

CREATE OR REPLACE FUNCTION public.thought_priority_json(public.thought_priority)
RETURNS json
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog
AS $$ SELECT pg_catalog.to_json($1::text) $$;
REVOKE EXECUTE ON FUNCTION public.thought_priority_json(public.thought_priority) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.thought_priority_json(public.thought_priority) TO service_role;

DROP CAST IF EXISTS (public.thought_priority AS json);
CREATE CAST (public.thought_priority AS json)
  WITH FUNCTION public.thought_priority_json(public.thought_priority);

NOTIFY pgrst, 'reload schema';
