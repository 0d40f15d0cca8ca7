-- A maintenance function that deletes from a table its caller names, building the statement by
-- concatenation; only service_role may execute it, so the injection is not the API's.
BEGIN;
CREATE TABLE IF NOT EXISTS public.lc_notes (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_id   uuid NOT NULL,
  body       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS lc_notes_owner_idx ON public.lc_notes (id);
ALTER TABLE public.lc_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS lc_notes_service_role_all ON public.lc_notes;
CREATE POLICY lc_notes_service_role_all ON public.lc_notes
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.lc_notes TO service_role;

CREATE OR REPLACE FUNCTION public.lc_purge(p_table text)
RETURNS void
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
  EXECUTE 'DELETE FROM public.' || p_table || ' WHERE created_at < now() - interval ''90 days''';
END;
$$;
REVOKE ALL ON FUNCTION public.lc_purge(text) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.lc_purge(text) TO service_role;
NOTIFY pgrst, 'reload schema';
COMMIT;
