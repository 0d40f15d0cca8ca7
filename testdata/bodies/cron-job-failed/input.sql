-- A nightly rollup whose job calls a function by a name the file does not define: the migration
-- installs, and the job fails every night.
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

CREATE TABLE IF NOT EXISTS public.lc_note_daily (
  day   date PRIMARY KEY,
  notes integer NOT NULL
);
ALTER TABLE public.lc_note_daily ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS lc_note_daily_service_role_all ON public.lc_note_daily;
CREATE POLICY lc_note_daily_service_role_all ON public.lc_note_daily
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.lc_note_daily TO service_role;
CREATE OR REPLACE FUNCTION public.lc_note_rollup()
RETURNS void
LANGUAGE sql
SET search_path = ''
AS $$
  INSERT INTO public.lc_note_daily (day, notes)
  SELECT n.created_at::date, count(*) FROM public.lc_notes n GROUP BY 1
  ON CONFLICT (day) DO UPDATE SET notes = excluded.notes
$$;
REVOKE ALL ON FUNCTION public.lc_note_rollup() FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.lc_note_rollup() TO service_role;
SELECT cron.schedule('lc-note-rollup', '5 0 * * *', $job$SELECT public.lc_notes_rollup()$job$);
NOTIFY pgrst, 'reload schema';
COMMIT;
