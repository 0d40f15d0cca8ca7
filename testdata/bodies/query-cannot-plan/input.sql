-- Soft deletes given up: the file drops lc_notes.archived_at, which two SQL helpers still read.
-- A SQL body is not a dependency of what it reads, so the DROP succeeds, both functions install,
-- and the view over one of them installs too; all three fail when anything reads them.
BEGIN;
CREATE TABLE IF NOT EXISTS public.lc_notes (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_id    uuid NOT NULL,
  body        text NOT NULL,
  archived_at timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE public.lc_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS lc_notes_service_role_all ON public.lc_notes;
CREATE POLICY lc_notes_service_role_all ON public.lc_notes
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.lc_notes TO service_role;

CREATE OR REPLACE FUNCTION public.lc_live_note_count(p_owner uuid)
RETURNS bigint
LANGUAGE sql STABLE
SET search_path = ''
AS $$
  SELECT count(*) FROM public.lc_notes n WHERE n.owner_id = p_owner AND n.archived_at IS NULL
$$;
REVOKE ALL ON FUNCTION public.lc_live_note_count(uuid) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.lc_live_note_count(uuid) TO service_role;

-- Inlined into the view that reads it (no SET clause, so the planner may).
CREATE OR REPLACE FUNCTION public.lc_live_notes()
RETURNS SETOF public.lc_notes
LANGUAGE sql STABLE
AS $$
  SELECT * FROM public.lc_notes WHERE archived_at IS NULL
$$;
REVOKE ALL ON FUNCTION public.lc_live_notes() FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.lc_live_notes() TO service_role;
CREATE OR REPLACE VIEW public.lc_live_note_bodies WITH (security_invoker = true) AS
  SELECT l.id, l.body FROM public.lc_live_notes() l;
REVOKE ALL ON public.lc_live_note_bodies FROM PUBLIC, anon, authenticated;
GRANT SELECT ON public.lc_live_note_bodies TO service_role;

ALTER TABLE public.lc_notes DROP COLUMN IF EXISTS archived_at;
NOTIFY pgrst, 'reload schema';
COMMIT;
