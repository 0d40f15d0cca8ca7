-- A search RPC that anon may call (an explicit grant, so that the public site can search;
-- authenticated may too, through Supabase's default privileges in public), and that pastes its
-- argument into the SQL it runs: anyone with the project's anon key runs SQL of their own
-- through it.
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

CREATE OR REPLACE FUNCTION public.lc_search_notes(p_sort text)
RETURNS SETOF public.lc_notes
LANGUAGE plpgsql STABLE
SET search_path = ''
AS $$
BEGIN
  RETURN QUERY EXECUTE 'SELECT * FROM public.lc_notes ORDER BY ' || p_sort || ' LIMIT 50';
END;
$$;
REVOKE ALL ON FUNCTION public.lc_search_notes(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.lc_search_notes(text) TO anon, service_role;
NOTIFY pgrst, 'reload schema';
COMMIT;
