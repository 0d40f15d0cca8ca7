-- A function whose last statements can never run: they follow a RETURN.
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

CREATE OR REPLACE FUNCTION public.lc_note_length(p_id bigint)
RETURNS integer
LANGUAGE plpgsql STABLE
SET search_path = ''
AS $$
DECLARE
  v_len integer;
BEGIN
  SELECT length(n.body) INTO v_len FROM public.lc_notes n WHERE n.id = p_id;
  RETURN v_len;
  RAISE NOTICE 'note % has % characters', p_id, v_len;
END;
$$;
REVOKE ALL ON FUNCTION public.lc_note_length(bigint) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.lc_note_length(bigint) TO service_role;
NOTIFY pgrst, 'reload schema';
COMMIT;
