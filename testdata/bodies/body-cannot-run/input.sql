-- A notes sidecar whose functions install and then fail on their first call: PostgreSQL checks a
-- PL/pgSQL body only when it runs. Each broken token is what plpgsql_check reports.
BEGIN;
CREATE TABLE IF NOT EXISTS public.lc_notes (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  body       text NOT NULL,
  word_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE public.lc_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS lc_notes_service_role_all ON public.lc_notes;
CREATE POLICY lc_notes_service_role_all ON public.lc_notes
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.lc_notes TO service_role;

-- The column is body; the function says bdy.
CREATE OR REPLACE FUNCTION public.lc_note_body(p_id bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = ''
AS $$
DECLARE
  v_body text;
BEGIN
  SELECT n.bdy INTO v_body FROM public.lc_notes n WHERE n.id = p_id;
  RETURN v_body;
END;
$$;

-- The table is lc_notes; the function reads lc_note.
CREATE OR REPLACE FUNCTION public.lc_note_count()
RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = ''
AS $$
DECLARE
  v_count bigint;
BEGIN
  SELECT count(*) INTO v_count FROM public.lc_note;
  RETURN v_count;
END;
$$;

-- An integer plus 'x'.
CREATE OR REPLACE FUNCTION public.lc_words_with_title(p_words integer)
RETURNS integer
LANGUAGE plpgsql IMMUTABLE
SET search_path = ''
AS $$
DECLARE
  v_total integer;
BEGIN
  v_total := p_words + 'x';
  RETURN v_total;
END;
$$;

-- A trigger function that stamps a column lc_notes does not have.
CREATE OR REPLACE FUNCTION public.lc_notes_touch()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
  NEW.updated_at := now();
  NEW.word_count := coalesce(array_length(regexp_split_to_array(NEW.body, '\s+'), 1), 0);
  RETURN NEW;
END;
$$;
DROP TRIGGER IF EXISTS lc_notes_touch ON public.lc_notes;
CREATE TRIGGER lc_notes_touch BEFORE INSERT OR UPDATE ON public.lc_notes
  FOR EACH ROW EXECUTE FUNCTION public.lc_notes_touch();

REVOKE ALL ON FUNCTION public.lc_note_body(bigint), public.lc_note_count(), public.lc_words_with_title(integer),
  public.lc_notes_touch() FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.lc_note_body(bigint), public.lc_note_count(), public.lc_words_with_title(integer)
  TO service_role;
NOTIFY pgrst, 'reload schema';
COMMIT;
