-- A function that declares a variable it never uses and takes a parameter it never reads: left
-- over from an earlier version, they tell a reader something the body does not do.
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

CREATE OR REPLACE FUNCTION public.lc_recent_notes(p_owner uuid, p_limit integer)
RETURNS SETOF public.lc_notes
LANGUAGE plpgsql STABLE
SET search_path = ''
AS $$
DECLARE
  v_cutoff timestamptz;
BEGIN
  RETURN QUERY SELECT n.* FROM public.lc_notes n WHERE n.owner_id = p_owner ORDER BY n.created_at DESC LIMIT 20;
END;
$$;
REVOKE ALL ON FUNCTION public.lc_recent_notes(uuid, integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.lc_recent_notes(uuid, integer) TO service_role;
NOTIFY pgrst, 'reload schema';
COMMIT;
