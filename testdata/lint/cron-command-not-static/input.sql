-- A nightly purge whose command is assembled with format(): lint cannot read what the job runs.
CREATE TABLE IF NOT EXISTS public.lc_notes (id uuid PRIMARY KEY, body text, created_at timestamptz NOT NULL DEFAULT now());
ALTER TABLE public.lc_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS lc_notes_service_role_all ON public.lc_notes;
CREATE POLICY lc_notes_service_role_all ON public.lc_notes
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.lc_notes TO service_role;
SELECT cron.schedule('lc-notes-purge', '30 3 * * *',
  format('DELETE FROM %I.%I WHERE created_at < now() - interval %L', 'public', 'lc_notes', '90 days'));
NOTIFY pgrst, 'reload schema';
