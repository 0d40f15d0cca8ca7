-- A lookup by id whose parameter is numeric while id is bigint: the comparison casts the column,
-- so the primary key's index cannot serve it and every call reads the whole table.
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

CREATE OR REPLACE FUNCTION public.lc_note_by_id(p_id numeric)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = ''
AS $$
DECLARE
  v_body text;
BEGIN
  SELECT n.body INTO v_body FROM public.lc_notes n WHERE n.id = p_id;
  RETURN v_body;
END;
$$;
REVOKE ALL ON FUNCTION public.lc_note_by_id(numeric) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.lc_note_by_id(numeric) TO service_role;
NOTIFY pgrst, 'reload schema';
COMMIT;
