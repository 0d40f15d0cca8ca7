-- The thoughts filed under a project (needs the projects sidecar).
CREATE TABLE IF NOT EXISTS public.project_thoughts (
  project_id bigint NOT NULL REFERENCES public.projects (id) ON DELETE CASCADE,
  thought_id uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  pinned boolean NOT NULL DEFAULT false,
  PRIMARY KEY (project_id, thought_id)
);
ALTER TABLE public.project_thoughts ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS project_thoughts_service_role ON public.project_thoughts;
CREATE POLICY project_thoughts_service_role ON public.project_thoughts FOR ALL TO service_role USING (true) WITH CHECK (true);
REVOKE ALL ON public.project_thoughts FROM anon, authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.project_thoughts TO service_role;
NOTIFY pgrst, 'reload schema';
