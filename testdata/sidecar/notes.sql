CREATE TABLE IF NOT EXISTS public.notes (
  id bigint PRIMARY KEY,
  tag_id bigint REFERENCES public.tags (id),
  body text NOT NULL
);
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS notes_service_role_all ON public.notes;
CREATE POLICY notes_service_role_all ON public.notes FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.notes TO service_role;
NOTIFY pgrst, 'reload schema';
