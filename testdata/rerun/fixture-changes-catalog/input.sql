-- A notes sidecar that reruns cleanly. Its fixture changes the catalog after the install (a
-- seeding helper, a comment, an index for the test's reads): the rerun audit's baseline must
-- be read after the fixture, not be the install's snapshot, or every rerun would seem to add
-- what the fixture made.
CREATE TABLE IF NOT EXISTS public.agent_notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE public.agent_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS agent_notes_service ON public.agent_notes;
CREATE POLICY agent_notes_service ON public.agent_notes FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.agent_notes TO service_role;
NOTIFY pgrst, 'reload schema';
